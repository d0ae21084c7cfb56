package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// TestALateArrivalIsRecordedBesideTheBookingOnly: the desk records that a court's guest came 15
// minutes after 08:00, then corrects it to 20; the booking is kept as it was (status, units).
// An arrival not after the start, a booking no longer holding its units and a hotel booking
// are refused, and nothing is written.
func TestALateArrivalIsRecordedBesideTheBookingOnly(t *testing.T) {
	t.Parallel()
	d := openVenue(t)
	ctx := db.WithActor(context.Background(), "desk-1")
	b := heldOrder(t, d, "late-guest", "k", slotLine("court-1", 8, 1), hours("rackets", 8, 10, 1))

	got, err := d.Store.RecordLateArrival(ctx, b, at(8).Add(15*time.Minute))
	require.NoError(t, err)
	assert.Equal(t, []any{15, "desk-1"}, []any{got.MinutesLate, got.RecordedBy})
	got, err = d.Store.RecordLateArrival(ctx, b, at(8).Add(20*time.Minute+30*time.Second))
	require.NoError(t, err)
	late, err := d.Store.LateArrivals(ctx, []string{b.ID, "bk_none"})
	require.NoError(t, err)
	require.Len(t, late, 1)
	assert.Equal(t, 20, late[b.ID].MinutesLate, "recorded again, it is replaced")
	assert.True(t, late[b.ID].ArrivedAt.Equal(got.ArrivedAt))
	after, err := d.Store.GetBooking(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusHold, after.Status, "the booking is kept as it was")
	assert.Equal(t, 1, reserved(t, d, "court-1", 8))

	_, err = d.Store.RecordLateArrival(ctx, b, at(8).Add(30*time.Second))
	assert.ErrorIs(t, err, domain.ErrInvalid, "not a minute after the start: not late")

	hotel := b
	hotel.VenueID = ""
	_, err = d.Store.RecordLateArrival(ctx, hotel, at(9))
	assert.ErrorIs(t, err, domain.ErrConflict, "a hotel booking")

	other := heldOrder(t, d, "gone-guest", "k", slotLine("court-1", 9, 1))
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET status = 'CANCELLED' WHERE id = $1`, other.ID)
	require.NoError(t, err)
	_, err = d.Store.RecordLateArrival(ctx, other, at(9).Add(10*time.Minute))
	assert.ErrorIs(t, err, domain.ErrConflict, "a cancelled booking")
	late, err = d.Store.LateArrivals(ctx, []string{other.ID})
	require.NoError(t, err)
	assert.Empty(t, late, "nothing written")
}
