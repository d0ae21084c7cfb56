package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDatabaseRefusesTwoBookingsInOneRoomOnOneNight (issue 39): rooms 101 and 102 are
// doubles. Two stays overlapping on the 11th cannot both have 101, whoever writes it: the
// store refuses the second, and so does the database itself (the control writes the row
// straight into room_assignments). A move on the 11th ends 101 there and frees it from then
// on; a cancelled booking, or a stay shortened, lets its room go.
func TestTheDatabaseRefusesTwoBookingsInOneRoomOnOneNight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	numbers, err := d.Store.PutRooms(ctx, "h1", "double", []string{"102", "101"})
	require.NoError(t, err)
	assert.Equal(t, []string{"101", "102"}, numbers)

	first := hold(t, d, "g1", stay3, 1) // the 10th to the 13th
	second := hold(t, d, "g2", nights(dec11, 1), 1)
	rooms, err := d.Store.AssignRoom(db.WithActor(ctx, "desk-1"), first.ID, "101", "", domain.Date{})
	require.NoError(t, err)
	assert.Equal(t, []db.RoomAssignment{{Room: "101", From: dec10, To: dec13, AssignedBy: "desk-1"}}, rooms)
	_, err = d.Store.AssignRoom(ctx, second.ID, "101", "", domain.Date{})
	assert.ErrorIs(t, err, domain.ErrConflict, "101 is the first booking's on the 11th")
	_, err = d.Pool.Exec(ctx, `INSERT INTO room_assignments (booking_id, room_id, nights)
		SELECT $1, id, daterange('2030-12-11', '2030-12-12') FROM rooms WHERE number = '101'`, second.ID)
	require.Error(t, err, "control: the database itself refuses it")
	assert.Contains(t, err.Error(), "one_booking_per_room_and_night")

	// The guest moves to 102 on the 11th: 101 is free from then on.
	rooms, err = d.Store.AssignRoom(ctx, first.ID, "102", "", dec11)
	require.NoError(t, err)
	assert.Equal(t, []db.RoomAssignment{{Room: "101", From: dec10, To: dec11, AssignedBy: "desk-1"},
		{Room: "102", From: dec11, To: dec13}}, rooms)
	_, err = d.Store.AssignRoom(ctx, second.ID, "101", "", domain.Date{})
	require.NoError(t, err, "101 is free on the 11th now")
	on11, err := d.Store.RoomsOn(ctx, "h1", dec11)
	require.NoError(t, err)
	assert.Equal(t, []db.RoomNight{{Room: "101", RoomType: "double", BookingID: second.ID, Status: domain.StatusHold,
		Arrives: true, Leaves: true}, {Room: "102", RoomType: "double", BookingID: first.ID, Status: domain.StatusHold}}, on11)

	// A booking that ends lets its rooms go.
	_, err = d.Store.Release(ctx, second.ID, domain.StatusCancelled)
	require.NoError(t, err)
	rooms, err = d.Store.BookingRooms(ctx, second.ID)
	require.NoError(t, err)
	assert.Empty(t, rooms)
	_, err = d.Store.AssignRoom(ctx, second.ID, "101", "", domain.Date{})
	assert.ErrorIs(t, err, domain.ErrConflict, "a cancelled booking holds no nights")

	// Refusals say why.
	_, err = d.Store.AssignRoom(ctx, first.ID, "999", "", domain.Date{})
	assert.ErrorIs(t, err, domain.ErrNotFound)
	_, err = d.Store.AssignRoom(ctx, first.ID, "101", "", dec13)
	assert.ErrorIs(t, err, domain.ErrInvalid, "the check-out day is no night of the stay")
}

// TestRacingAssignmentsOfOneRoomGiveItToOne: six bookings of the same nights ask for room 101
// at once: exactly one has it. The control races six more with the exclusion constraint dropped:
// the room is given more than once, so the constraint is what keeps it to one.
func TestRacingAssignmentsOfOneRoomGiveItToOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 12)
	_, err := d.Store.PutRooms(ctx, "h1", "double", []string{"101"})
	require.NoError(t, err)
	race := func(round string) (won int) {
		var ids []string
		for i := range 6 {
			ids = append(ids, hold(t, d, fmt.Sprintf("g%s%d", round, i), stay3, 1).ID)
		}
		errs := make([]error, len(ids))
		testsuite.Race(len(ids), func(i int) { _, errs[i] = d.Store.AssignRoom(ctx, ids[i], "101", "", domain.Date{}) })
		for _, err := range errs {
			if err == nil {
				won++
			} else {
				assert.ErrorIs(t, err, domain.ErrConflict)
			}
		}
		_, err := d.Pool.Exec(ctx, `DELETE FROM room_assignments`)
		require.NoError(t, err)
		return won
	}
	assert.Equal(t, 1, race("a"), "one booking has room 101")
	_, err = d.Pool.Exec(ctx, `ALTER TABLE room_assignments DROP CONSTRAINT one_booking_per_room_and_night`)
	require.NoError(t, err)
	assert.Greater(t, race("b"), 1, "control: without the constraint, the room is given twice")
}
