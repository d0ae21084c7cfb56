package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Closing a slot a booking holds names the booking and closes nothing; keeping the bookings
// closes it; a booking a closed slot holds is never a no-show (issue 39, defect 2).
func TestClosingABookedSlotNamesItsBookingsAndClosesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	paid, err := d.Store.ReserveOrder(ctx, order("guest", "k1", slotLine("court-1", 8, 1), slotLine("rackets", 8, 1)))
	require.NoError(t, err)
	paid, err = d.Store.Confirm(ctx, paid.ID, nil)
	require.NoError(t, err)
	racketsOnly, err := d.Store.ReserveOrder(ctx, order("other", "k2", slotLine("rackets", 8, 1)))
	require.NoError(t, err)

	rain := db.Closure{VenueID: "v1", From: at(8), To: at(9), Reason: "rain", By: "desk-1"}
	_, err = d.Store.CloseUnits(ctx, rain)
	var booked *db.SlotsBookedError
	require.True(t, errors.As(err, &booked), "%v", err)
	assert.ErrorIs(t, err, domain.ErrConflict)
	names := map[string]string{}
	for _, b := range booked.Bookings {
		names[b.BookingID] = b.ResourceID + " " + string(b.Status)
	}
	assert.Equal(t, map[string]string{paid.ID: "court-1 CONFIRMED", racketsOnly.ID: "rackets HOLD"}, names)
	assert.Zero(t, count(t, d, `SELECT count(*) FROM inventory WHERE closed_at IS NOT NULL`), "nothing was closed")

	// A free slot closes as before; so does a booked one that keeps its bookings.
	n, err := d.Store.CloseUnits(ctx, db.Closure{VenueID: "v1", From: at(9), To: at(10), Reason: "rain", By: "desk-1"})
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	rain.KeepBookings = true
	n, err = d.Store.CloseUnits(ctx, rain)
	require.NoError(t, err)
	assert.Equal(t, 3, n)

	out, err := d.Store.MarkNoShowUnlessClosed(ctx, paid.ID)
	require.NoError(t, err)
	assert.True(t, out.SlotClosed)
	assert.Equal(t, domain.StatusConfirmed, out.Booking.Status, "its guest could not come: not a no-show")
	assert.Equal(t, 1, reserved(t, d, "court-1", 8), "it keeps its slot for the desk to move or refund")
	// Control: the no-show of workflows recorded before the rule marks it.
	out, err = d.Store.MarkNoShow(ctx, paid.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusNoShow, out.Booking.Status)
}

// A closure racing a reservation of the slot: either the closure is refused naming the new
// booking, or the reservation finds the slot closed; never both through, a closed slot holding a
// booking nobody was told about. The control keeps the bookings: both go through in some round.
func TestAClosureRacingAReservationNeverClosesABookingInUnseen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	const rounds = 16
	race := func(keep bool) (both int) {
		for r := range rounds {
			var held domain.Booking
			var errs [2]error
			testsuite.Race(2, func(i int) {
				if i == 0 {
					held, errs[0] = d.Store.ReserveOrder(ctx, order(fmt.Sprintf("g-%t-%d", keep, r), "k", slotLine("court-1", 8, 1)))
				} else {
					_, errs[1] = d.Store.CloseUnits(ctx, db.Closure{VenueID: "v1", ResourceID: "court-1", From: at(8), To: at(9),
						Reason: "rope", By: "desk", KeepBookings: keep})
				}
			})
			reserved := errs[0] == nil && held.Status == domain.StatusHold // a closed slot's order is REJECTED
			if reserved && errs[1] == nil {
				both++
			}
			if reserved {
				_, err := d.Store.Release(ctx, held.ID, domain.StatusExpired)
				require.NoError(t, err)
			}
			_, err := d.Store.ReopenUnits(ctx, db.Closure{VenueID: "v1", ResourceID: "court-1", From: at(8), To: at(9)})
			require.NoError(t, err)
		}
		return both
	}
	assert.Zero(t, race(false), "a booking and a closure of its slot both went through")
	assert.Positive(t, race(true), "control: keeping the bookings, both go through")
}
