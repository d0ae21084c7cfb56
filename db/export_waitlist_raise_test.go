package db

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// RaiseInTwoSteps is the control of the offer made in a raise's transaction: it sets a room
// type's total over [from, to) with nothing offered, runs between (a public hold, say), and only
// then offers the waitlist what is left, in a second transaction.
func (s *Store) RaiseInTwoSteps(ctx context.Context, hotelID, roomTypeID string, from, to domain.Date, total int,
	between func()) error {
	var nights []line
	if err := s.inTx(ctx, func(tx pgx.Tx) error {
		id, err := roomTypeResource(ctx, tx, hotelID, roomTypeID)
		if err != nil {
			return err
		}
		nights = []line{{resourceID: id, from: from.Time(), to: to.Time()}}
		if err := lockLines(ctx, tx, nights); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE inventory SET total = $4 WHERE resource_id = $1 AND unit_start >= $2 AND unit_start < $3`,
			id, from.Time(), to.Time(), total)
		return err
	}); err != nil {
		return err
	}
	between()
	return s.inTx(ctx, func(tx pgx.Tx) error {
		waiting, err := lockForGiveBack(ctx, tx, nights)
		if err != nil {
			return err
		}
		return offerFreed(ctx, tx, nights, waiting)
	})
}
