package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// AmendmentRefund is a part of the refund of an amendment that lowered a paid booking's price,
// still owed: its workflow was gone before the provider gave it back.
type AmendmentRefund struct {
	AmendmentID int64
	// Step is the part's step in its attempts' keys: amendment-<id>, then amendment-<id>-<paymentId>
	// after the first part, as the workflow names them.
	Step    string
	Payment domain.Payment
	// FirstAttempt is the attempt to go on from (RefundStepState.GoOnFrom).
	FirstAttempt int
}

// UnfinishedAmendmentRefunds lists the parts of the refunds of a booking's applied amendments
// that no attempt gave back (an operator's resolution included), for a workflow taking the
// booking up again: each part as the ledger drew it (AmendmentRefundRef), on as many payments as
// the booking kept.
func (s *Store) UnfinishedAmendmentRefunds(ctx context.Context, bookingID string) ([]AmendmentRefund, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.id, m.refund, m.currency, COALESCE(b.payment_id, '') FROM booking_amendments m
		JOIN bookings b ON b.id = m.booking_id
		WHERE m.booking_id = $1 AND m.status = 'APPLIED' AND m.refund > 0 ORDER BY m.id`, bookingID)
	if err != nil {
		return nil, err
	}
	type refund struct {
		ID, Amount        int64
		Currency, Payment string
	}
	refunds, err := pgx.CollectRows(rows, pgx.RowToStructByPos[refund])
	if err != nil {
		return nil, err
	}
	var owed []AmendmentRefund
	for _, r := range refunds {
		id := r.ID
		drawn, err := s.RefundParts(ctx, bookingID, AmendmentRefundRef(bookingID, id))
		if err != nil {
			return nil, err
		}
		// as the live workflow takes them (its drawRefund)
		parts := PartsOrWhole(drawn, r.Amount, domain.Payment{ID: r.Payment, Currency: r.Currency})
		for i, pay := range parts {
			step := fmt.Sprintf("amendment-%d", id)
			if i > 0 {
				step += "-" + pay.ID
			}
			st, err := s.RefundStep(ctx, bookingID, step)
			if err != nil {
				return nil, err
			}
			if !st.Given {
				owed = append(owed, AmendmentRefund{AmendmentID: id, Step: step, Payment: pay, FirstAttempt: st.GoOnFrom()})
			}
		}
	}
	return owed, nil
}
