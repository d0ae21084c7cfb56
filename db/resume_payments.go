package db

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// What a workflow taking a booking's money up again (a resumed booking, a refund recovery) reads
// back from the database rather than from the lost workflow's memory.

// ActedOnPaymentIDs lists, sorted, the payments of booking bookingID a workflow acted on: those it
// keeps (its payment, the desk's, the balances its amendments took) and those any of which was
// asked back (a payment it does not keep, given back or on its way back; one finance refunded by
// hand). A resumed workflow counts them seen: a redelivery of one's event is neither a second
// payment to give back nor a balance to pay an amendment with.
func (s *Store) ActedOnPaymentIDs(ctx context.Context, bookingID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT k.id FROM bookings b CROSS JOIN LATERAL `+keptPaymentIDs+` AS k(id)
		WHERE b.id = $1 AND k.id IS NOT NULL
		UNION SELECT l.payment_id FROM money_ledger l WHERE l.booking_id = $1 AND l.kind = 'refund_asked' AND l.payment_id <> ''
		ORDER BY 1`, bookingID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// BookingRefundStep names the step of a booking's refund (a cancel's, a recovery's) that gives
// back its part of payment paymentID in its attempts' keys: "refund" for the booking's payment,
// "refund-<paymentId>" for another it keeps (a balance, a desk deposit).
func BookingRefundStep(b domain.Booking, paymentID string) string {
	if paymentID == b.PaymentID {
		return "refund"
	}
	return "refund-" + paymentID
}

// ExtraRefundStep names the step that gives back payment paymentID, which its booking does not
// keep (a second payment, a wrong amount), in its attempts' keys.
func ExtraRefundStep(paymentID string) string { return "extra-" + paymentID }

// RefundProgress is how far a REFUNDING booking's refund got, for a recovery that goes on with it.
type RefundProgress struct {
	// Parts are what the refund draws on each payment, as the ledger drew them: on each payment it
	// kept, newest first, up to what it kept of it (PartsOrWhole: its refund due on its payment
	// when the ledger's draw does not add up to it).
	Parts []domain.Payment
	// Part is the first part no attempt gave back (len(Parts) when all were); FirstAttempt the
	// attempt of its step to go on from: its last when that one's outcome is open, the next when
	// it failed.
	Part, FirstAttempt int
}

// BookingRefundProgress reads how far booking b's refund, paid in currency, got: the parts its
// saga draws, and the part and attempt it goes on from. A part any attempt of which succeeded (an
// operator's resolution included) is given back, whatever attempts followed it.
func (s *Store) BookingRefundProgress(ctx context.Context, b domain.Booking, currency string) (RefundProgress, error) {
	p := RefundProgress{FirstAttempt: 1}
	if b.RefundDue <= 0 {
		return p, nil
	}
	parts, err := s.RefundParts(ctx, b.ID, CancelRefundRef(b.ID))
	if err != nil {
		return p, err
	}
	// as the ledger drew them when the booking became REFUNDING, as the live saga takes them
	p.Parts = PartsOrWhole(parts, b.RefundDue, domain.Payment{ID: b.PaymentID, Currency: currency})
	for p.Part = 0; p.Part < len(p.Parts); p.Part++ {
		var given bool
		var last int
		var status string
		err := s.pool.QueryRow(ctx, `SELECT bool_or(status = 'succeeded') OVER (), n, status FROM (
				SELECT split_part(id, '/', -1)::int AS n, status FROM refunds
				WHERE booking_id = $1 AND starts_with(id, $2) AND substr(id, length($2) + 1) ~ '^[0-9]+$') a
			ORDER BY n DESC LIMIT 1`, b.ID, b.ID+"/"+BookingRefundStep(b, p.Parts[p.Part].ID)+"/").Scan(&given, &last, &status)
		if errors.Is(err, pgx.ErrNoRows) {
			return p, nil // never asked: from its first attempt
		}
		if err != nil || !given {
			p.FirstAttempt = max(last, 1)
			if status == "failed" {
				p.FirstAttempt = last + 1
			}
			return p, err
		}
	}
	return p, nil
}

// UnkeptRefund is a payment booking's workflow was giving back because the booking does not keep
// it (a second payment), that no attempt gave back yet.
type UnkeptRefund struct {
	Payment domain.Payment // as it was captured: the saga gives back what is left of it
	// FirstAttempt is the attempt of its step (extra-<paymentId>) to go on from
	// (RefundStepState.GoOnFrom).
	FirstAttempt int
}

// UnfinishedUnkeptRefunds lists the payments of booking bookingID whose refund a workflow began
// (an attempt of step extra-<paymentId> is recorded) and no attempt gave back, with money of them
// left or under way back: a resumed workflow gives them back, as the lost one was doing. A workflow
// other than the booking's may have begun it (a LatePayment workflow, while the booking's was
// gone): the two give one step back under the same keys, and a resolution by hand waits for both
// (RecordResolvedRefund). A payment captured whose refund never began is not one: nothing says
// what the lost workflow made of it, and the checker reports it (unmatched_payment).
func (s *Store) UnfinishedUnkeptRefunds(ctx context.Context, bookingID string) ([]UnkeptRefund, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.payment_id, c.amount, c.currency, st.last, st.last_status
		FROM money_ledger c CROSS JOIN LATERAL `+stepAttempts("c.booking_id", "c.booking_id || '/extra-' || c.payment_id || '/'")+` st
		WHERE c.booking_id = $1 AND c.kind = 'captured' AND st.last > 0 AND NOT st.given
			AND NOT EXISTS (SELECT 1 FROM money_ledger k WHERE k.kind = 'kept' AND k.ref = c.payment_id)
			AND (SELECT COALESCE(sum(m.balance), 0) FROM money_balances m
				WHERE m.payment_id = c.payment_id AND m.account IN ('received', 'owed', 'refunding')) > 0
		ORDER BY c.at, c.payment_id`, bookingID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (UnkeptRefund, error) {
		var u UnkeptRefund
		var st RefundStepState
		err := r.Scan(&u.Payment.ID, &u.Payment.Amount, &u.Payment.Currency, &st.Last, &st.LastStatus)
		u.FirstAttempt = st.GoOnFrom()
		return u, err
	})
}
