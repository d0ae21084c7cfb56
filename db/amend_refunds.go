package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// AmendmentRefund is the refund of an amendment that lowered a paid booking's price, still owed:
// its workflow was gone before the provider gave it back.
type AmendmentRefund struct {
	AmendmentID int64
	Step        string // the refund's step in its attempts' keys: amendment-<id>
	Payment     domain.Payment
	// FirstAttempt is the attempt to go on from: the last one when its outcome is open or
	// succeeded (asked again under its key), the next one when it failed.
	FirstAttempt int
}

// UnfinishedAmendmentRefunds lists the refunds of a booking's applied amendments that no
// succeeded refund attempt gave back, for a workflow taking the booking up again. The booking
// had one payment then (with a balance paid before, a refund is drawn on several, and an
// operator finds it among the unsettled refunds instead).
func (s *Store) UnfinishedAmendmentRefunds(ctx context.Context, bookingID string) ([]AmendmentRefund, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.id, m.refund, m.currency, b.payment_id FROM booking_amendments m
		JOIN bookings b ON b.id = m.booking_id
		WHERE m.booking_id = $1 AND m.status = 'APPLIED' AND m.refund > 0 AND b.payment_id IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM booking_amendments e WHERE e.booking_id = m.booking_id AND e.id < m.id
				AND e.balance_payment_id IS NOT NULL)
			AND NOT EXISTS (SELECT 1 FROM refunds f WHERE f.booking_id = m.booking_id AND f.status = 'succeeded'
				AND starts_with(f.id, m.booking_id || '/amendment-' || m.id || '/'))
		ORDER BY m.id`, bookingID)
	if err != nil {
		return nil, err
	}
	owed, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AmendmentRefund, error) {
		var a AmendmentRefund
		err := r.Scan(&a.AmendmentID, &a.Payment.Amount, &a.Payment.Currency, &a.Payment.ID)
		return a, err
	})
	if err != nil {
		return nil, err
	}
	for i := range owed {
		a := &owed[i]
		a.Step = fmt.Sprintf("amendment-%d", a.AmendmentID)
		last, status, err := s.LastRefundAttempt(ctx, bookingID, a.Step)
		if err != nil {
			return nil, err
		}
		a.FirstAttempt = max(last, 1)
		if status == "failed" {
			a.FirstAttempt = last + 1
		}
	}
	return owed, nil
}
