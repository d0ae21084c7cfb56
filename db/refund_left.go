package db

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// BeginRefundOfWhatIsLeft is BeginRefundAttempt for the refund of a whole payment no booking
// keeps (a duplicate, a wrong amount): a new attempt gives back what is left of the payment after
// the refunds made or under way (finance may have settled part of it by hand), at most a.Amount.
// An attempt recorded before under its key is asked again as it was. With nothing left it records
// nothing and answers succeeded, for 0: the payment was given back already. What is left is read
// before BeginRefundAttempt takes the payment's lock: a refund recorded in between makes its
// bound refuse the attempt (failed), and the next attempt reads again.
func (s *Store) BeginRefundOfWhatIsLeft(ctx context.Context, a RefundAttempt) (RefundAttempt, error) {
	stored, err := s.GetRefundAttempt(ctx, a.ID)
	switch {
	case err == nil:
		if stored.Amount <= a.Amount {
			a.Amount = stored.Amount // the same attempt; another payment or currency is refused below
		}
		return s.BeginRefundAttempt(ctx, a)
	case !errors.Is(err, domain.ErrNotFound):
		return a, err
	}
	var left int64
	err = s.pool.QueryRow(ctx, `SELECT p.amount - COALESCE((SELECT sum(f.amount) FROM refunds f
			WHERE f.payment_id = p.payment_id AND f.status <> 'failed'), 0)
		FROM payments p WHERE p.payment_id = $1`, a.PaymentID).Scan(&left)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return s.BeginRefundAttempt(ctx, a) // not recorded: bounded by the provider alone
	case err != nil:
		return a, err
	case left <= 0:
		a.Amount, a.Status, a.Method = 0, "succeeded", domain.MethodProvider
		return a, nil
	}
	a.Amount = min(a.Amount, left)
	return s.BeginRefundAttempt(ctx, a)
}
