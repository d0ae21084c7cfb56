package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// ReconcilerActor is who the audit log shows for payments the reconciliation recovered.
const ReconcilerActor = "payment-reconciliation"

// Defaults for ReconcileInput fields left zero.
const (
	// DefaultReconcileWindow is how far back the daily run looks: three days, so that two runs
	// missed or failed are made up by the next.
	DefaultReconcileWindow = 72 * time.Hour
	// DefaultReconcileSettle is how long a payment may wait for its webhook (the provider may be
	// retrying it, the handler delivering it) before the reconciliation takes it on.
	DefaultReconcileSettle = 10 * time.Minute
)

// Error types of a reconciliation: its provider cannot list payments (not retried), or another
// run holds the lock (retried).
const (
	ErrTypeCannotList = "CannotListPayments"
	ErrTypeLocked     = "ReconciliationUnderWay"
)

// ReconcileInput configures a run of the payment reconciliation.
type ReconcileInput struct {
	Window time.Duration // how far back to list the provider's payments
	Settle time.Duration // how long a payment is left to its webhook first
}

// ReconcileReport is what a run of the reconciliation found and did.
type ReconcileReport struct {
	Since   time.Time `json:"since"`
	Checked int       `json:"checked"` // succeeded payments the provider listed
	// Skipped: another run was under way, and this one did nothing.
	Skipped bool `json:"skipped,omitempty"`
	// Recovered are payments bookflow had no record of (their webhook never arrived): recorded
	// and delivered, so their booking takes them or they are refunded.
	Recovered []string `json:"recovered"`
	// Redelivered are payments recorded whose event never reached a workflow.
	Redelivered []string `json:"redelivered"`
	// Unprocessable are payments without a booking id, or with an amount or currency bookflow
	// cannot take, newly kept for finance as an unprocessable webhook would be.
	Unprocessable []string `json:"unprocessable"`
	// Mismatched are payments the provider lists otherwise than bookflow's money ledger captured
	// them: another amount or currency, or nothing captured although the payment is recorded.
	// Reported for finance; the run changes nothing about them.
	Mismatched []string `json:"mismatched"`
	// Failed are payments this run could not handle (the next run, or a retry, tries again).
	Failed []string `json:"failed"`
}

// Reconciliation matches the provider's successful payments against bookflow's records, so that
// no payment is left unmatched when its webhook was lost for good.
type Reconciliation struct {
	Store    *db.Store
	Provider payments.PaymentLister
	// Deliver hands a payment event to the workflow that acts on it, as the webhook does (the
	// worker wires worker.Deliverer).
	Deliver func(ctx context.Context, ev domain.PaymentEvent) error
}

// Reconcile lists the payments that succeeded at the provider in the window and, for each that
// succeeded over Settle ago, makes sure bookflow has it: one it never heard of is recorded (as
// event "reconcile-<payment id>") and delivered as its webhook would have been; one recorded and
// never delivered is delivered. Each delivery is audited once. What bookflow holds of a payment's
// money is its money ledger's captured entry: one the provider lists with another amount or
// currency, or that the ledger never captured, is reported as Mismatched. A payment delivered under one
// event is never delivered again under another (db.Store.RecordPaymentEvent), so a webhook
// arriving after the reconciliation changes nothing.
//
// A payment that fails does not stop the others; the run then fails, listing them, and a retry
// takes them up (what was done is not done again). One run at a time.
func (a *Reconciliation) Reconcile(ctx context.Context, in ReconcileInput) (ReconcileReport, error) {
	if in.Window <= 0 {
		in.Window = DefaultReconcileWindow
	}
	if in.Settle <= 0 {
		in.Settle = DefaultReconcileSettle
	}
	now := time.Now()
	report := ReconcileReport{Since: now.Add(-in.Window), Recovered: []string{}, Redelivered: []string{},
		Unprocessable: []string{}, Mismatched: []string{}, Failed: []string{}}
	if a.Provider == nil {
		return report, temporal.NewNonRetryableApplicationError("the payment provider cannot list its payments",
			ErrTypeCannotList, nil)
	}
	var failures []error
	ran, err := a.Store.WithReconcileLock(ctx, func() error {
		listed, err := a.list(ctx, report.Since)
		if err != nil {
			return fmt.Errorf("list the provider's payments: %w", err)
		}
		for i, p := range listed {
			if activity.IsActivity(ctx) {
				activity.RecordHeartbeat(ctx, i)
			}
			report.Checked++
			if p.SucceededAt.After(now.Add(-in.Settle)) {
				continue // its webhook may still come
			}
			if err := a.reconcile(ctx, p, in.Settle, &report); err != nil {
				report.Failed = append(report.Failed, p.ID)
				failures = append(failures, fmt.Errorf("payment %s: %w", p.ID, err))
			}
		}
		return nil
	})
	report.Skipped = !ran && err == nil
	if report.Skipped && activity.IsActivity(ctx) {
		// Perhaps an earlier attempt of this very run, timed out and still going: try again
		// later rather than end the run as if done.
		return report, temporal.NewApplicationError("another reconciliation run is under way", ErrTypeLocked)
	}
	if err == nil && len(failures) > 0 {
		err = fmt.Errorf("%d of %d payments not reconciled: %w", len(failures), report.Checked, errors.Join(failures...))
	}
	return report, err
}

// list lists the provider's succeeded payments, heartbeating while it pages through them.
func (a *Reconciliation) list(ctx context.Context, since time.Time) ([]payments.PaymentRecord, error) {
	if !activity.IsActivity(ctx) {
		return a.Provider.SucceededPayments(ctx, since)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(30 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				activity.RecordHeartbeat(ctx, "listing")
			}
		}
	}()
	return a.Provider.SucceededPayments(ctx, since)
}

// reconcile makes sure bookflow has one succeeded payment.
func (a *Reconciliation) reconcile(ctx context.Context, p payments.PaymentRecord, settle time.Duration, report *ReconcileReport) error {
	payload, _ := json.Marshal(map[string]any{"source": "reconciliation", "payment": p})
	ev := domain.PaymentEvent{EventID: db.ReconcileEventID(p.ID), Type: "payment_intent.succeeded", BookingID: p.BookingID,
		PaymentID: p.ID, Succeeded: true, Amount: p.Amount, Currency: p.Currency, AmendmentID: p.AmendmentID,
		FeeKey: p.FeeKey} // a fee's payment is delivered as that fee, never as a payment of the price
	if problem := unprocessable(p); problem != "" {
		kept, err := a.Store.UnprocessablePaymentKept(ctx, p.ID)
		if err != nil || kept {
			return err
		}
		kept, err = a.Store.KeepUnprocessablePayment(ctx, db.UnprocessableEvent{EventID: ev.EventID, Type: ev.Type,
			Problem: problem + ", found by the reconciliation", Payload: payload},
			db.AuditEntry{Actor: ReconcilerActor, Action: "reconcile-payment",
				Reason: "payment " + p.ID + " kept for finance: " + problem, Details: map[string]any{"paymentId": p.ID}})
		if kept {
			report.Unprocessable = append(report.Unprocessable, p.ID)
		}
		return err
	}
	captured, inLedger, err := a.Store.LedgerCaptured(ctx, p.ID)
	if err != nil {
		return err
	}
	// Whether its success is recorded, and which of its events wait for a workflow, are the
	// payment's rows: the ledger holds its money, not its webhook's delivery.
	recorded, undelivered, err := a.Store.PaymentDelivery(ctx, p.ID, settle)
	if err != nil {
		return err
	}
	if !inLedger && !recorded {
		// Never heard of: record it, then deliver it below (a retry finds it recorded and not
		// delivered, and delivers it then).
		if _, err := a.Store.RecordPaymentEvent(ctx, ev, payload); err != nil {
			return err
		}
		if _, undelivered, err = a.Store.PaymentDelivery(ctx, p.ID, settle); err != nil {
			return err
		}
		if captured, inLedger, err = a.Store.LedgerCaptured(ctx, p.ID); err != nil {
			return err
		}
	}
	if !inLedger || captured.Amount != p.Amount || captured.Currency != p.Currency {
		report.Mismatched = append(report.Mismatched, p.ID)
	}
	// Delivered under the reconciliation's own event: its webhook never arrived.
	recovered := slices.Contains(undelivered, ev.EventID)
	why := "delivered: it was recorded and never reached its workflow"
	if recovered {
		why = "recovered: its webhook never arrived"
	}
	var delivered bool
	for _, id := range undelivered {
		ev.EventID = id
		if err := a.Deliver(ctx, ev); err != nil {
			return fmt.Errorf("deliver: %w", err)
		}
		marked, err := a.Store.MarkReconciled(ctx, id, db.AuditEntry{Actor: ReconcilerActor, Action: "reconcile-payment",
			BookingID: ev.BookingID, Reason: "payment " + p.ID + " " + why,
			Details: map[string]any{"paymentId": p.ID, "amount": p.Amount, "currency": p.Currency, "eventId": id}})
		if err != nil {
			return err
		}
		delivered = delivered || marked
	}
	switch {
	case !delivered:
	case recovered:
		report.Recovered = append(report.Recovered, p.ID)
	default:
		report.Redelivered = append(report.Redelivered, p.ID)
	}
	return nil
}

// unprocessable says why a payment cannot be delivered to a booking ("" when it can), as the
// webhook parser would.
func unprocessable(p payments.PaymentRecord) string {
	switch {
	case p.BookingID == "":
		return "a succeeded payment without bookingId in its metadata"
	case p.Amount <= 0 || domain.ValidateCurrency(p.Currency) != nil:
		return "a succeeded payment without a positive amount and a currency"
	}
	return ""
}
