package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// CheckOut records that a checked-in hotel guest has gone: checked_out_at and who (the
// context's actor), once; asked again it changes nothing. The stay's nights and money are the
// booking's as they stand (an early departure shortens them first, through the workflow).
func (s *Store) CheckOut(ctx context.Context, bookingID string) (domain.Booking, error) {
	var b domain.Booking
	err := s.inBookingTx(ctx, bookingID, func(tx pgx.Tx) error {
		var err error
		if b, err = scanBooking(tx.QueryRow(ctx, `SELECT `+bookingColumns+`
			FROM bookings b JOIN resources r ON r.id = b.resource_id WHERE b.id = $1 FOR UPDATE OF b`, bookingID)); err != nil {
			return err
		}
		switch {
		case !b.CheckedOutAt.IsZero():
			return nil
		case b.VenueID != "":
			return fmt.Errorf("%w: booking %s is a venue's: it ends with its last slot, without a check-out", domain.ErrConflict, b.ID)
		case b.Status != domain.StatusCompleted:
			return fmt.Errorf("%w: booking %s is %s: only a checked-in guest is checked out", domain.ErrConflict, b.ID, b.Status)
		}
		if _, err := tx.Exec(ctx, `UPDATE bookings SET checked_out_at = now(), checked_out_by = NULLIF($2, ''), updated_at = now()
			WHERE id = $1`, bookingID, actorOf(ctx)); err != nil {
			return err
		}
		b, err = getBooking(ctx, tx, bookingID)
		return err
	})
	return b, err
}
