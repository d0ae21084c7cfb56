package db

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// TakeDeskDepositKeepingTheHold takes desk payment p as the release before issue 39 did: a hold
// is confirmed only once its payments cover its price (or a deposit plan's deposit while its
// balance date is ahead), so a smaller deposit leaves it on hold, to run out. Bookings held then
// are still in the database after an upgrade; the tests make them with this.
func (s *Store) TakeDeskDepositKeepingTheHold(ctx context.Context, p DeskPayment) (domain.Booking, error) {
	return s.takeDeskPayment(ctx, p, func(ctx context.Context, tx pgx.Tx, b domain.Booking, id string, amount, due int64) error {
		got := b.Price.Total - due
		deposit := b.PlanTerms != nil && b.PlanTerms.Payment.Deposit(b.Price.Total) <= got+amount
		_, err := tx.Exec(ctx, `UPDATE bookings SET paid = paid + $2, payment_id = COALESCE(payment_id, $3),
				status = CASE WHEN status = 'HOLD' AND ($4 OR ($5 AND balance_due_at > now())) THEN 'CONFIRMED' ELSE status END,
				balance_due_at = CASE WHEN status = 'HOLD' AND $4 THEN NULL ELSE balance_due_at END, updated_at = now()
			WHERE id = $1`, b.ID, amount, id, amount == due, deposit)
		return err
	})
}
