package db

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// RecordPaymentEvent stores a webhook event once per event id and, for a payment event, the
// payment once per payment id. It reports whether the event still has to be delivered to the
// booking's workflow: false for a duplicate of an event already delivered.
func (s *Store) RecordPaymentEvent(ctx context.Context, ev domain.PaymentEvent, payload []byte) (deliver bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var delivered *time.Time
		err := tx.QueryRow(ctx, `INSERT INTO payment_events (event_id, type, booking_id, payment_id, refund_id, payload)
			VALUES ($1, $2, $3, NULLIF($4, ''), NULLIF($5, ''), $6)
			ON CONFLICT (event_id) DO UPDATE SET event_id = EXCLUDED.event_id
			RETURNING delivered_at`, ev.EventID, ev.Type, ev.BookingID, ev.PaymentID, ev.RefundID, payload).Scan(&delivered)
		if err != nil {
			return err
		}
		deliver = delivered == nil
		if ev.IsRefund || ev.PaymentID == "" {
			return nil
		}
		status := "failed"
		if ev.Succeeded {
			status = "succeeded"
		}
		// A payment id is recorded once; a success reported after a failure wins.
		_, err = tx.Exec(ctx, `INSERT INTO payments (payment_id, booking_id, amount, currency, status, succeeded_at)
			VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 = 'succeeded' THEN now() END)
			ON CONFLICT (payment_id) DO UPDATE SET status = 'succeeded', succeeded_at = COALESCE(payments.succeeded_at, now())
			WHERE EXCLUDED.status = 'succeeded'`,
			ev.PaymentID, ev.BookingID, ev.Amount, ev.Currency, status)
		if err != nil || !deliver || !ev.Succeeded {
			return err
		}
		// A success delivered already under another event (the reconciliation's, say, then the
		// provider's own) is not delivered again: a workflow closed since might act on it anew.
		tag, err := tx.Exec(ctx, `UPDATE payment_events SET delivered_at = now()
			WHERE event_id = $1 AND EXISTS (SELECT 1 FROM payment_events o WHERE o.payment_id = $2
				AND o.type = $3 AND o.event_id <> $1 AND o.delivered_at IS NOT NULL)`, ev.EventID, ev.PaymentID, ev.Type)
		deliver = err == nil && tag.RowsAffected() == 0
		return err
	})
	return deliver, err
}

// PaymentDelivery says whether a payment is recorded as succeeded, and which of its success
// events wait to be handed to a workflow: those recorded more than settleFor ago (the webhook
// handler may still be delivering a younger one), and any the reconciliation recorded.
func (s *Store) PaymentDelivery(ctx context.Context, paymentID string, settleFor time.Duration) (succeeded bool, undelivered []string, err error) {
	err = s.pool.QueryRow(ctx, `SELECT
			EXISTS (SELECT 1 FROM payments WHERE payment_id = $1 AND status = 'succeeded'),
			COALESCE((SELECT array_agg(event_id ORDER BY event_id) FROM payment_events
				WHERE payment_id = $1 AND type = 'payment_intent.succeeded' AND delivered_at IS NULL
				AND (received_at < now() - $2::interval OR event_id = $3)), '{}')`,
		paymentID, settleFor, ReconcileEventID(paymentID)).Scan(&succeeded, &undelivered)
	return succeeded, undelivered, err
}

// ReconcileEventID is the event id under which the reconciliation records a payment.
func ReconcileEventID(paymentID string) string { return "reconcile-" + paymentID }

// MarkReconciled marks an event the reconciliation delivered, and audits it, once: a retry
// finds it marked and writes nothing. It reports whether this call marked it.
func (s *Store) MarkReconciled(ctx context.Context, eventID string, e AuditEntry) (marked bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE payment_events SET delivered_at = now() WHERE event_id = $1 AND delivered_at IS NULL`, eventID)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		marked = true
		return insertAudit(ctx, tx, e)
	})
	return marked, err
}

// UnprocessablePaymentKept reports whether a payment's success is already kept for finance, under
// the provider's event id or the reconciliation's.
func (s *Store) UnprocessablePaymentKept(ctx context.Context, paymentID string) (bool, error) {
	var kept bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM unprocessable_events WHERE event_id = $2
		OR (type = 'payment_intent.succeeded' AND payload #>> '{data,object,id}' = $1))`,
		paymentID, ReconcileEventID(paymentID)).Scan(&kept)
	return kept, err
}

// MarkEventDelivered notes that the booking's workflow has the event.
func (s *Store) MarkEventDelivered(ctx context.Context, eventID string) error {
	_, err := s.pool.Exec(ctx, `UPDATE payment_events SET delivered_at = now() WHERE event_id = $1 AND delivered_at IS NULL`, eventID)
	return err
}

// RefundAttempt is one attempt at a refund step: ID is the idempotency key sent to the provider.
type RefundAttempt struct {
	ID               string `json:"id"`
	BookingID        string `json:"bookingId"`
	PaymentID        string `json:"paymentId"`
	Amount           int64  `json:"amount"`
	Currency         string `json:"currency"`
	Reason           string `json:"reason"`
	Status           string `json:"status"` // requested, pending, succeeded or failed
	ProviderRefundID string `json:"providerRefundId,omitempty"`
	LastError        string `json:"lastError,omitempty"`
	// Method is how it was made: through the provider, at the desk by the method of the payment
	// it gives back, or by hand (Reference then names the transfer, RecordedBy who recorded it).
	Method     string `json:"method"`
	Reference  string `json:"reference,omitempty"`
	RecordedBy string `json:"recordedBy,omitempty"`
	// Age is how long ago the attempt was first recorded (by the database's clock).
	Age time.Duration `json:"-"`
}

// BeginRefundAttempt records an attempt before its provider call; an attempt already recorded
// is returned as stored, so a retried activity sees what an earlier try achieved. The refund of
// money the desk took is made there, by the same method, and so is a staff refund the desk chose
// to hand over in cash or on the terminal (db/refund_methods.go): it is never sent to the
// provider. Asked by staff (RecordedBy), it is recorded as succeeded at once, handed over by
// them; asked by nobody at the desk (the guest's own cancel; a no-show, whose RecordedBy is
// bookflow's own system: actor; a staff refund finance asked, StaffRefund.AwayFromDesk, whoever's
// saga asks its part), it waits there, pending, until someone hands it over
// (db/refund_hand_over.go). Under the payment's lock, a new attempt that would give back
// more than is left of its payment (after the refunds made or under way) is recorded as failed,
// never sent: the saga waits for an operator rather than ask for money that is not there. An
// attempt of a step already given back is answered by the attempt that gave it back.
func (s *Store) BeginRefundAttempt(ctx context.Context, a RefundAttempt) (RefundAttempt, error) {
	if strings.HasPrefix(a.RecordedBy, domain.SystemActorPrefix) {
		a.RecordedBy = "" // bookflow's own step (a no-show's refund): no person gave it back
	}
	var given string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		terms, err := staffRefundTerms(ctx, tx, a) // a staff refund's chosen method, and who asked it
		if err != nil {
			return err
		}
		var taker, paidBy string
		if err := tx.QueryRow(ctx, `SELECT COALESCE(max(taken_by), ''), COALESCE(max(method), '') FROM payments
			WHERE payment_id = $1`, a.PaymentID).Scan(&taker, &paidBy); err != nil {
			return err
		}
		// Asked away from the desk (finance), nobody at the desk has handed it over, unless it goes
		// back by bank transfer, which whoever asks makes.
		if terms.away && cmp.Or(terms.method, paidBy) != domain.MethodBankTransfer {
			a.RecordedBy = ""
		}
		// A refund made at the desk is in its maker's cash-up, and a reversal in its payment's taker's
		// (db/cash_up_lock.go): their locks first.
		if err := cashierMoney(ctx, tx, a.RecordedBy); err != nil {
			return err
		}
		if taker != a.RecordedBy {
			if err := cashierMoney(ctx, tx, taker); err != nil {
				return err
			}
		}
		p, err := lockPaymentLeft(ctx, tx, a.PaymentID, a.ID)
		if err != nil {
			return err
		}
		// A step is given back once: an attempt of a step one of whose attempts succeeded (an
		// operator's resolution, attempt 0, included) is answered by that success, never made.
		if given, err = givenAttempt(ctx, tx, a); err != nil || given != "" {
			return err
		}
		status, lastError := "requested", ""
		method := cmp.Or(terms.method, p.method)
		switch {
		case p.recorded && a.Amount > p.left:
			status, lastError = "failed", fmt.Sprintf("a refund of %d would give back more than the %d left of payment %s",
				a.Amount, p.left, a.PaymentID)
		case method != domain.MethodProvider && a.RecordedBy == "":
			status, lastError = "pending", DueAtTheDesk
		case method != domain.MethodProvider:
			status = "succeeded"
		}
		tag, err := tx.Exec(ctx, `INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status, method, last_error,
				recorded_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULLIF($9, ''), NULLIF($10, '')) ON CONFLICT (id) DO NOTHING`,
			a.ID, a.BookingID, a.PaymentID, a.Amount, a.Currency, a.Reason, status, method, lastError, a.RecordedBy)
		if err != nil || tag.RowsAffected() == 1 {
			return err
		}
		// Asked before under this key: it must be the same refund, or it is another one's record.
		stored, err := getRefundAttempt(ctx, tx, a.ID)
		if err == nil && (stored.PaymentID != a.PaymentID || stored.Amount != a.Amount || stored.Currency != a.Currency) {
			err = fmt.Errorf("%w: refund attempt %s was made for %d %s of payment %s, not %d %s of %s", domain.ErrConflict,
				a.ID, stored.Amount, stored.Currency, stored.PaymentID, a.Amount, a.Currency, a.PaymentID)
		}
		return err
	})
	if err != nil {
		return a, err
	}
	return s.GetRefundAttempt(ctx, cmp.Or(given, a.ID))
}

// paymentLeft is what lockPaymentLeft reads of a payment.
type paymentLeft struct {
	recorded bool   // a payment row exists (one not recorded is bounded by the provider alone)
	method   string // how it was taken: provider when not recorded
	left     int64  // its amount less the refunds made or under way of it
}

// lockPaymentLeft locks a payment's row, then reads what is left of it to refund, leaving out
// the refund except (the one being recorded). The lock is taken in a statement of its own, so
// what is left is read after waiting for it.
func lockPaymentLeft(ctx context.Context, tx pgx.Tx, paymentID, except string) (paymentLeft, error) {
	p := paymentLeft{recorded: true}
	var amount int64
	err := tx.QueryRow(ctx, `SELECT amount, method FROM payments WHERE payment_id = $1 FOR UPDATE`, paymentID).Scan(&amount, &p.method)
	if errors.Is(err, pgx.ErrNoRows) {
		return paymentLeft{method: domain.MethodProvider}, nil
	}
	if err != nil {
		return p, err
	}
	var refunded int64
	err = tx.QueryRow(ctx, `SELECT COALESCE(sum(amount), 0) FROM refunds WHERE payment_id = $1 AND status <> 'failed'
		AND id <> $2`, paymentID, except).Scan(&refunded)
	p.left = amount - refunded
	return p, err
}

// ErrRefundInFlight refuses a resolution by hand of a refund step an attempt of which may still
// give the money back (requested or pending at the provider).
var ErrRefundInFlight = fmt.Errorf("%w: a refund attempt of the step is under way", domain.ErrConflict)

// RecordResolvedRefund records, once, a refund step an operator resolved as made by hand: a
// succeeded refund by method other, with the operator as who recorded it and their reason as its
// reference, for what is left of its payment under the payment's lock (the refunds made or under
// way already count). A step an attempt already gave back (the provider's webhook arrived while
// the step waited for the operator) takes no resolution: its money went back once. A step with an
// attempt under way is refused (ErrRefundInFlight); one waiting at the desk for someone to hand
// it over is resolved: it will not be handed over now (closeDeskWait).
func (s *Store) RecordResolvedRefund(ctx context.Context, a RefundAttempt) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := lockPaymentLeft(ctx, tx, a.PaymentID, a.ID); err != nil {
			return err
		}
		if given, err := givenAttempt(ctx, tx, a); err != nil || given != "" {
			return err
		}
		if err := closeDeskWait(ctx, tx, a); err != nil {
			return err
		}
		p, err := lockPaymentLeft(ctx, tx, a.PaymentID, a.ID) // what is left, the wait at the desk closed
		if err != nil {
			return err
		}
		// An attempt of the step under way (another saga's: a resumed run's beside a LatePayment
		// workflow's) may still give the money back: resolving now could pay the guest twice.
		if busy, err := attemptInFlight(ctx, tx, a); err != nil || busy != "" {
			if busy != "" {
				err = fmt.Errorf("%w: attempt %s of the step is requested or pending at the provider; retry for its answer first",
					ErrRefundInFlight, busy)
			}
			return err
		}
		given := a.Amount
		if p.recorded {
			given = min(given, p.left)
		}
		if given <= 0 {
			return nil // what the payment brought is given back already
		}
		_, err = tx.Exec(ctx, `INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status, method,
				reference, recorded_by) VALUES ($1, $2, $3, $4, $5, $6, 'succeeded', 'other', $7, $8) ON CONFLICT (id) DO NOTHING`,
			a.ID, a.BookingID, a.PaymentID, given, a.Currency, a.Reason, a.Reference, a.RecordedBy)
		return err
	})
}

// GetRefundAttempt loads one attempt.
func (s *Store) GetRefundAttempt(ctx context.Context, id string) (RefundAttempt, error) {
	return getRefundAttempt(ctx, s.pool, id)
}

// refundColumns are a RefundAttempt's, in its fields' order.
const refundColumns = `id, booking_id, payment_id, amount, currency, reason, status,
	COALESCE(provider_refund_id, ''), COALESCE(last_error, ''), method, COALESCE(reference, ''), COALESCE(recorded_by, ''),
	now() - created_at`

func getRefundAttempt(ctx context.Context, q querier, id string) (RefundAttempt, error) {
	rows, err := q.Query(ctx, `SELECT `+refundColumns+` FROM refunds WHERE id = $1`, id)
	if err != nil {
		return RefundAttempt{}, err
	}
	a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[RefundAttempt])
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("%w: no refund attempt %q", domain.ErrNotFound, id)
	}
	return a, err
}

// FinishRefundAttempt records the provider's answer to an attempt. A final status (succeeded or
// failed) is never overwritten by a later, older answer.
func (s *Store) FinishRefundAttempt(ctx context.Context, id, providerRefundID, status, lastError string) error {
	_, err := s.pool.Exec(ctx, `UPDATE refunds SET provider_refund_id = COALESCE(NULLIF($2, ''), provider_refund_id),
			status = $3, last_error = NULLIF($4, ''), updated_at = now()
		WHERE id = $1 AND status NOT IN ('succeeded', 'failed')`, id, providerRefundID, status, lastError)
	return err
}

// SettleRefund records the provider's final word on a refund (from a webhook), found by the
// provider's refund id.
func (s *Store) SettleRefund(ctx context.Context, providerRefundID string, succeeded bool, reason string) error {
	status := "failed"
	if succeeded {
		status = "succeeded"
	}
	_, err := s.pool.Exec(ctx, `UPDATE refunds SET status = $2, last_error = NULLIF($3, ''), updated_at = now()
		WHERE provider_refund_id = $1 AND status IN ('requested', 'pending')`, providerRefundID, status, reason)
	return err
}

// PaymentAccountedFor reports whether a payment already has a home: a booking kept it (or an
// amendment's balance, a deposit plan's, or a guarantee card's fee), or a
// refund of it was requested (and not declined). A late redelivery of its event must then not
// refund it again.
func (s *Store) PaymentAccountedFor(ctx context.Context, paymentID string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bookings WHERE payment_id = $1)
		OR EXISTS (SELECT 1 FROM booking_amendments WHERE balance_payment_id = $1)
		OR EXISTS (SELECT 1 FROM bookings WHERE balance_payment_id = $1)
		OR EXISTS (SELECT 1 FROM payments p JOIN bookings b ON b.id = p.booking_id
			WHERE p.payment_id = $1 AND b.guarantee_fee->>'paymentId' = $1)
		OR EXISTS (SELECT 1 FROM refunds WHERE payment_id = $1 AND status <> 'failed')`, paymentID).Scan(&ok)
	return ok, err
}

// PaymentRecord is a payment the provider reported for a booking.
type PaymentRecord struct {
	PaymentID  string    `json:"paymentId"`
	Amount     int64     `json:"amount"`
	Currency   string    `json:"currency"`
	Status     string    `json:"status"` // succeeded or failed
	ReceivedAt time.Time `json:"receivedAt"`
	// Method is provider, or how the desk took it (TakenBy who, Note what the desk wrote).
	Method  string `json:"method"`
	TakenBy string `json:"takenBy,omitempty"`
	Note    string `json:"note,omitempty"`
}

// BookingMoney returns the payments reported for a booking and the refund attempts made for
// it, oldest first: what finance reads to follow a booking's money.
func (s *Store) BookingMoney(ctx context.Context, bookingID string) ([]PaymentRecord, []RefundAttempt, error) {
	rows, err := s.pool.Query(ctx, `SELECT payment_id, amount, currency, status, created_at, method,
			COALESCE(taken_by, ''), COALESCE(note, '') FROM payments
		WHERE booking_id = $1 ORDER BY created_at, payment_id`, bookingID)
	if err != nil {
		return nil, nil, err
	}
	pays, err := pgx.CollectRows(rows, pgx.RowToStructByPos[PaymentRecord])
	if err != nil {
		return nil, nil, err
	}
	rows, err = s.pool.Query(ctx, `SELECT `+refundColumns+` FROM refunds WHERE booking_id = $1 ORDER BY created_at, id`, bookingID)
	if err != nil {
		return nil, nil, err
	}
	refunds, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RefundAttempt])
	return pays, refunds, err
}

// UnprocessableEvent is a signed webhook event bookflow cannot act on, kept for an operator.
type UnprocessableEvent struct {
	EventID    string          `json:"eventId"`
	Type       string          `json:"type"`
	Problem    string          `json:"problem"`
	Payload    json.RawMessage `json:"payload"`
	ReceivedAt time.Time       `json:"receivedAt"`
}

// RecordUnprocessableEvent keeps an event that can never be processed, once per event id.
func (s *Store) RecordUnprocessableEvent(ctx context.Context, e UnprocessableEvent) error {
	_, err := s.pool.Exec(ctx, insertUnprocessable, e.EventID, e.Type, e.Problem, []byte(e.Payload))
	return err
}

const insertUnprocessable = `INSERT INTO unprocessable_events (event_id, type, problem, payload)
	VALUES ($1, $2, $3, $4) ON CONFLICT (event_id) DO NOTHING`

// KeepUnprocessablePayment keeps a payment the reconciliation cannot deliver for finance, and
// audits it, once: it reports whether this call kept it.
func (s *Store) KeepUnprocessablePayment(ctx context.Context, e UnprocessableEvent, a AuditEntry) (kept bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, insertUnprocessable, e.EventID, e.Type, e.Problem, []byte(e.Payload))
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		kept = true
		return insertAudit(ctx, tx, a)
	})
	return kept, err
}

// UnprocessableEvents returns up to limit kept events received before the given time (all when
// zero), newest first.
func (s *Store) UnprocessableEvents(ctx context.Context, before time.Time, limit int) ([]UnprocessableEvent, error) {
	rows, err := s.pool.Query(ctx, `SELECT event_id, type, problem, payload, received_at FROM unprocessable_events
		WHERE $1::timestamptz IS NULL OR received_at < $1 ORDER BY received_at DESC, event_id LIMIT $2`,
		nullTime(before), limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[UnprocessableEvent])
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// MoneySummary is a booking's money as its view shows it, in its price's currency: what its
// kept payments brought (Paid), what of it went back (Refunded), what is on its way back
// (Refunding), what its sales channel owes for it (OnAccount: sold on the channel's account),
// what its live extras charge it (Extras: the folio, db/folio.go) and what is still to pay (Due,
// while the booking holds its units).
type MoneySummary struct {
	Currency  string `json:"currency"`
	Paid      int64  `json:"paid"`
	Refunded  int64  `json:"refunded"`
	Refunding int64  `json:"refunding"`
	OnAccount int64  `json:"onAccount"`
	Extras    int64  `json:"extras"`
	Due       int64  `json:"due"`
}

// BookingMoneySummary sums a booking's money for its view from its ledger: what its kept
// payments brought, what of it went back, what is on its way back (asked or sent, not yet
// given), what its channel owes, what its extras charge, and what is still to pay while it holds
// its units (its price and extras less what it was paid and what its channel owes, plus what
// reversals of desk payments and a lower price gave back).
func (s *Store) BookingMoneySummary(ctx context.Context, b domain.Booking) (MoneySummary, error) {
	l, err := s.LedgerMoney(ctx, b.ID)
	if err != nil {
		return MoneySummary{}, err
	}
	owes, err := s.ChannelOwes(ctx, b.ID)
	if err != nil {
		return MoneySummary{}, err
	}
	m := MoneySummary{Currency: b.Price.Currency, Paid: l.Paid, Refunded: l.Refunded, Refunding: l.Owed + l.Refunding,
		OnAccount: owes}
	var fell int64 // what a lower price gave back (lowered): not paid for what it costs now
	if err := s.pool.QueryRow(ctx, `SELECT ledger_booking_extras(b.id), `+lowered+` FROM bookings b WHERE b.id = $1`,
		b.ID).Scan(&m.Extras, &fell); err != nil {
		return MoneySummary{}, err
	}
	if b.Status.HoldsInventory() {
		m.Due = max(b.Price.Total+m.Extras-(l.Paid-l.Reversed-fell)-owes, 0)
	}
	return m, nil
}
