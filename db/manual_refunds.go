package db

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// ManualRefund is a refund finance made outside bookflow (a bank transfer, say) against a
// payment no booking keeps, recorded so the books and the checker count it.
type ManualRefund struct {
	PaymentID string `json:"paymentId"`
	Key       string `json:"key"`
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	Method    string `json:"method"`
	Reference string `json:"reference"`
	Reason    string `json:"reason"`
	Actor     string `json:"actor"`
}

// ManualRefundID names a refund settled by hand by its payment and idempotency key.
func ManualRefundID(paymentID, key string) string { return "manual/" + paymentID + "/" + key }

// RecordManualRefund records a refund settled by hand as succeeded, never above what is left of
// its payment after the refunds already made or under way, and audits it, in one transaction
// under the payment's lock. A payment a booking keeps is refunded through the booking instead
// (ErrConflict). The same key again with the same refund changes nothing.
func (s *Store) RecordManualRefund(ctx context.Context, m ManualRefund) (RefundAttempt, error) {
	id := ManualRefundID(m.PaymentID, m.Key)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The lock is taken first, in a statement of its own: the sum of the refunds below is read
		// after it, so a record that waited for another sees what that one recorded.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM payments WHERE payment_id = $1 FOR UPDATE`, m.PaymentID); err != nil {
			return err
		}
		var amount, refunded, owed int64
		var currency, bookingID, status string
		var kept, refundedKeeps bool
		err := tx.QueryRow(ctx, `SELECT p.amount, p.currency, p.booking_id, p.status,
				COALESCE((SELECT sum(f.amount) FROM refunds f WHERE f.payment_id = p.payment_id AND f.status <> 'failed'), 0),
				EXISTS (SELECT 1 FROM bookings b WHERE b.id = p.booking_id
					AND b.status IN ('HOLD', 'CONFIRMED', 'COMPLETED', 'NO_SHOW', 'REFUNDING')
					AND p.payment_id IN `+keptPaymentIDs+`),
				EXISTS (SELECT 1 FROM bookings b WHERE b.id = p.booking_id AND b.status = 'REFUNDED'
					AND p.payment_id IN `+keptPaymentIDs+`),
				COALESCE((SELECT `+owedUnrecorded+` FROM bookings b WHERE b.id = p.booking_id), 0)
			FROM payments p WHERE p.payment_id = $1`, m.PaymentID).Scan(&amount, &currency, &bookingID, &status, &refunded, &kept,
			&refundedKeeps, &owed)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: no payment %q", domain.ErrNotFound, m.PaymentID)
		}
		if err != nil {
			return err
		}
		var before RefundAttempt
		if before, err = getRefundAttempt(ctx, tx, id); err == nil {
			if before.Amount != m.Amount || before.Currency != m.Currency {
				return fmt.Errorf("%w: manual refund key %s of payment %s", domain.ErrIdempotencyMismatch, m.Key, m.PaymentID)
			}
			return nil
		} else if !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		switch {
		case status != "succeeded":
			return fmt.Errorf("%w: payment %s did not succeed: there is nothing to refund", domain.ErrConflict, m.PaymentID)
		case kept:
			return fmt.Errorf("%w: payment %s is kept by booking %s: refund it through the booking", domain.ErrConflict,
				m.PaymentID, bookingID)
		case refundedKeeps && m.Amount > owed:
			// A refunded booking keeps its policy's fee; what its refund gave back and no row records
			// (resolved by hand before resolutions were recorded) is all that is recorded here.
			return fmt.Errorf("%w: payment %s is what refunded booking %s keeps, which owes %d not recorded", domain.ErrConflict,
				m.PaymentID, bookingID, max(owed, 0))
		case m.Currency != currency:
			return fmt.Errorf("%w: payment %s is in %s, not %s", domain.ErrInvalid, m.PaymentID, currency, m.Currency)
		case m.Amount <= 0:
			return fmt.Errorf("%w: a refund is more than zero", domain.ErrInvalid)
		case m.Amount > amount-refunded:
			return fmt.Errorf("%w: payment %s of %d %s has %d left to refund; %d is more", domain.ErrConflict,
				m.PaymentID, amount, currency, amount-refunded, m.Amount)
		case m.Reason == "" || m.Reference == "":
			return fmt.Errorf("%w: a refund settled by hand has a reason and a reference", domain.ErrInvalid)
		case m.Method == domain.MethodProvider || !slices.Contains(domain.DeskMethods, m.Method):
			return fmt.Errorf("%w: method %q: a refund settled by hand is cash, card_terminal, bank_transfer or other", domain.ErrInvalid, m.Method)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status,
				method, reference, recorded_by) VALUES ($1, $2, $3, $4, $5, $6, 'succeeded', $7, $8, $9)`,
			id, bookingID, m.PaymentID, m.Amount, m.Currency, m.Reason, m.Method, m.Reference, m.Actor); err != nil {
			return err
		}
		return insertAudit(ctx, tx, AuditEntry{Actor: m.Actor, Action: "manual-refund", BookingID: bookingID, Reason: m.Reason,
			Details: map[string]any{"paymentId": m.PaymentID, "amount": m.Amount, "currency": m.Currency, "method": m.Method,
				"reference": m.Reference, "refundedBefore": refunded, "refundedAfter": refunded + m.Amount}})
	})
	if err != nil {
		return RefundAttempt{}, err
	}
	return s.GetRefundAttempt(ctx, id)
}
