package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
)

// ReconcilerActor is who the audit log shows for payments the reconciliation recovered.
const ReconcilerActor = "payment-reconciliation"

// Defaults for ReconcileInput fields left zero.
const (
	// DefaultReconcileWindow is how far back the daily run looks: three days, so that a run
	// missed or failed is made up by the next.
	DefaultReconcileWindow = 72 * time.Hour
	// DefaultReconcileSettle is how long a recorded event may wait for its delivery (the webhook
	// handler may be delivering it) before the reconciliation delivers it.
	DefaultReconcileSettle = 10 * time.Minute
)

// ReconcileInput configures a run of the payment reconciliation.
type ReconcileInput struct {
	Window time.Duration // how far back to list the provider's payments
	Settle time.Duration // how old an undelivered event must be to be delivered here
}

// ReconcileReport is what a run of the reconciliation found and did.
type ReconcileReport struct {
	Since   time.Time `json:"since"`
	Checked int       `json:"checked"` // succeeded payments the provider listed
	// Recovered are payments bookflow had no record of (their webhook never arrived): recorded
	// and delivered, so their booking takes them or they are refunded.
	Recovered []string `json:"recovered"`
	// Redelivered are payments recorded whose event never reached a workflow.
	Redelivered []string `json:"redelivered"`
	// Unprocessable are payments without a booking id: kept for finance, as an unprocessable
	// webhook would be.
	Unprocessable []string `json:"unprocessable"`
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

// Reconcile lists the provider's succeeded payments of the window and, for each, makes sure
// bookflow has it: one it never heard of is recorded (as event "reconcile-<payment id>") and
// delivered as its webhook would have been; one recorded and never delivered is delivered. Both
// are audited. Delivering twice is harmless: a workflow acts on a payment id once.
func (a *Reconciliation) Reconcile(ctx context.Context, in ReconcileInput) (ReconcileReport, error) {
	if in.Window <= 0 {
		in.Window = DefaultReconcileWindow
	}
	if in.Settle <= 0 {
		in.Settle = DefaultReconcileSettle
	}
	report := ReconcileReport{Since: time.Now().Add(-in.Window), Recovered: []string{}, Redelivered: []string{},
		Unprocessable: []string{}}
	if a.Provider == nil {
		return report, errors.New("the payment provider cannot list its payments")
	}
	listed, err := a.Provider.SucceededPayments(ctx, report.Since)
	if err != nil {
		return report, fmt.Errorf("list the provider's payments: %w", err)
	}
	for _, p := range listed {
		report.Checked++
		payload, _ := json.Marshal(map[string]any{"source": "reconciliation", "payment": p})
		ev := domain.PaymentEvent{EventID: "reconcile-" + p.ID, Type: "payment_intent.succeeded", BookingID: p.BookingID,
			PaymentID: p.ID, Succeeded: true, Amount: p.Amount, Currency: p.Currency}
		if p.BookingID == "" {
			if err := a.Store.RecordUnprocessableEvent(ctx, db.UnprocessableEvent{EventID: ev.EventID, Type: ev.Type,
				Problem: "a succeeded payment without bookingId in its metadata, found by the reconciliation",
				Payload: payload}); err != nil {
				return report, err
			}
			report.Unprocessable = append(report.Unprocessable, p.ID)
			continue
		}
		succeeded, undelivered, err := a.Store.PaymentDelivery(ctx, p.ID, in.Settle)
		if err != nil {
			return report, err
		}
		switch {
		case !succeeded:
			if _, err := a.Store.RecordPaymentEvent(ctx, ev, payload); err != nil {
				return report, err
			}
			if err := a.deliver(ctx, ev, "recovered: its webhook never arrived"); err != nil {
				return report, err
			}
			report.Recovered = append(report.Recovered, p.ID)
		case len(undelivered) > 0:
			for _, id := range undelivered {
				ev.EventID = id
				if err := a.deliver(ctx, ev, "delivered: it was recorded and never reached its workflow"); err != nil {
					return report, err
				}
			}
			report.Redelivered = append(report.Redelivered, p.ID)
		}
	}
	return report, nil
}

// deliver hands ev to its workflow, marks it delivered and audits why.
func (a *Reconciliation) deliver(ctx context.Context, ev domain.PaymentEvent, why string) error {
	if err := a.Deliver(ctx, ev); err != nil {
		return fmt.Errorf("deliver payment %s: %w", ev.PaymentID, err)
	}
	if err := a.Store.MarkEventDelivered(ctx, ev.EventID); err != nil {
		return err
	}
	return a.Store.Audit(ctx, db.AuditEntry{Actor: ReconcilerActor, Action: "reconcile-payment", BookingID: ev.BookingID,
		Reason:  "payment " + ev.PaymentID + " " + why,
		Details: map[string]any{"paymentId": ev.PaymentID, "amount": ev.Amount, "currency": ev.Currency, "eventId": ev.EventID}})
}
