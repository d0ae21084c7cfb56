package db

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ReleaseInTwoSteps is the control of the offer made in the give-back's transaction: it expires
// a hold and gives its units back with nothing offered, runs between (a public hold, say), and
// only then offers the waitlist what is left, in a second transaction.
func (s *Store) ReleaseInTwoSteps(ctx context.Context, bookingID string, between func()) error {
	var lines []line
	if err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE bookings SET status = 'EXPIRED' WHERE id = $1`, bookingID); err != nil {
			return err
		}
		var err error
		if lines, err = bookingLines(ctx, tx, bookingID); err != nil {
			return err
		}
		if err := lockLines(ctx, tx, lines); err != nil {
			return err
		}
		for _, l := range lines {
			if err := giveBackLine(ctx, tx, bookingID, l); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	between()
	return s.inTx(ctx, func(tx pgx.Tx) error {
		waiting, err := lockForGiveBack(ctx, tx, lines)
		if err != nil {
			return err
		}
		return offerFreed(ctx, tx, lines, waiting)
	})
}
