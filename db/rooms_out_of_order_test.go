package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// blockedOn is the blocked rooms of h1's doubles on each night from dec10 to dec13.
func blockedOn(t *testing.T, d *testsuite.Database) []int {
	t.Helper()
	var out []int
	err := d.Pool.QueryRow(context.Background(), `SELECT array_agg(i.blocked ORDER BY i.unit_start) FROM inventory i
		JOIN resources r ON r.id = i.resource_id WHERE r.hotel_id = 'h1' AND r.code = 'double'
			AND i.unit_start >= '2030-12-10' AND i.unit_start < '2030-12-13'`).Scan(&out)
	require.NoError(t, err)
	return out
}

// TestAnOutOfOrderRoomIsABlockedRoom (issue 39): two doubles, 101 and 102. A room with a guest
// cannot go out of order; 102 out of order on the 10th and 11th is one more blocked room on each,
// cannot go out of order again on a night it is, takes no guest, and keeps the blocked count from
// going under it. A night with no room free (the 12th: both sold) refuses it, nothing changed.
// Back in order on the 11th lowers that night only; the 10th keeps its reason.
func TestAnOutOfOrderRoomIsABlockedRoom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	_, err := d.Store.PutRooms(ctx, "h1", "double", []string{"101", "102"})
	require.NoError(t, err)
	first := hold(t, d, "g1", stay3, 1)
	_, err = d.Store.AssignRoom(ctx, first.ID, "101", "", domain.Date{})
	require.NoError(t, err)

	_, err = d.Store.PutRoomOutOfOrder(ctx, "h1", "101", dec11, dec12, "leak")
	assert.ErrorIs(t, err, domain.ErrConflict, "101 has a guest on the 11th")
	assert.Contains(t, err.Error(), first.ID)
	assert.Equal(t, []int{0, 0, 0}, blockedOn(t, d), "nothing changed")

	out, err := d.Store.PutRoomOutOfOrder(db.WithActor(ctx, "desk-1"), "h1", "102", dec10, dec12, "leak")
	require.NoError(t, err)
	assert.Equal(t, db.OutOfOrder{Room: "102", From: dec10, To: dec12, Reason: "leak", PutBy: "desk-1"}, out)
	assert.Equal(t, []int{1, 1, 0}, blockedOn(t, d), "one more blocked room on each night out of order")

	_, err = d.Store.PutRoomOutOfOrder(ctx, "h1", "102", dec11, dec13, "paint")
	assert.ErrorIs(t, err, domain.ErrConflict, "102 is already out of order on the 11th")
	_, err = d.Store.AssignRoom(ctx, first.ID, "102", "", dec11)
	assert.ErrorIs(t, err, domain.ErrConflict, "no guest moves into a room out of order")
	assert.Contains(t, err.Error(), "out of order")
	_, err = d.Store.SetBlockedRooms(ctx, db.BlockRooms{HotelID: "h1", RoomTypeID: "double", From: dec10, To: dec11})
	assert.ErrorIs(t, err, domain.ErrConflict, "the blocked count cannot go under the rooms out of order")

	second := hold(t, d, "g2", nights(dec12, 1), 1) // the 12th is sold out now
	_, err = d.Store.PutRoomOutOfOrder(ctx, "h1", "102", dec12, dec13, "paint")
	assert.ErrorIs(t, err, domain.ErrConflict, "no room is free to block on the 12th")
	assert.Equal(t, []int{1, 1, 0}, blockedOn(t, d), "nothing changed")
	_, err = d.Store.AssignRoom(ctx, second.ID, "102", "", domain.Date{})
	require.NoError(t, err, "102 is in order on the 12th")

	n, err := d.Store.PutRoomBackInOrder(ctx, "h1", "102", dec11, dec13)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the 11th came back")
	assert.Equal(t, []int{1, 0, 0}, blockedOn(t, d))
	on10, err := d.Store.RoomsOn(ctx, "h1", dec10)
	require.NoError(t, err)
	require.Len(t, on10, 2)
	assert.Equal(t, &db.OutOfOrder{Room: "102", From: dec10, To: dec11, Reason: "leak", PutBy: "desk-1"}, on10[1].OutOfOrder)
	free, err := d.Store.FreeRooms(ctx, "h1", "double", dec11, dec12)
	require.NoError(t, err)
	assert.Equal(t, []string{"102"}, free)
	_, err = d.Store.PutRoomBackInOrder(ctx, "h1", "102", dec11, dec13)
	assert.ErrorIs(t, err, domain.ErrConflict, "102 is not out of order from the 11th")
	_, err = d.Store.PutRoomOutOfOrder(ctx, "h1", "999", dec10, dec11, "leak")
	assert.ErrorIs(t, err, domain.ErrNotFound)
}

// TestAGuestAndOutOfOrderRaceForOneRoom: a guest's room written but not yet committed, and the
// same room put out of order meanwhile: the second waits for the first and is refused, in either
// order, because each trigger locks the room before it looks. The control drops the triggers:
// the room goes out of order with a guest in it.
func TestAGuestAndOutOfOrderRaceForOneRoom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	_, err := d.Store.PutRooms(ctx, "h1", "double", []string{"101", "102", "103"})
	require.NoError(t, err)
	first, second := hold(t, d, "g1", stay3, 1), hold(t, d, "g2", stay3, 1)

	// waitsThenCommits runs fn while sql, in a transaction not yet committed, holds its row: fn
	// must be waiting (not done) until the transaction commits.
	waitsThenCommits := func(sql string, args []any, fn func() error) (err error, waited bool) {
		tx, err := d.Pool.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx) //nolint:errcheck // a no-op after commit
		_, err = tx.Exec(ctx, sql, args...)
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- fn() }()
		select {
		case err = <-done: // it did not wait
			require.NoError(t, tx.Commit(ctx))
			return err, false
		case <-time.After(500 * time.Millisecond):
		}
		require.NoError(t, tx.Commit(ctx))
		return <-done, true
	}
	assignSQL := `INSERT INTO room_assignments (booking_id, room_id, nights)
		SELECT $1, id, daterange('2030-12-10', '2030-12-13') FROM rooms WHERE number = $2`
	err, waited := waitsThenCommits(assignSQL, []any{first.ID, "101"}, func() error {
		_, err := d.Store.PutRoomOutOfOrder(ctx, "h1", "101", dec11, dec12, "leak")
		return err
	})
	assert.True(t, waited, "out of order waits for the guest's room")
	assert.ErrorIs(t, err, domain.ErrConflict, "and is refused once it is committed")
	assert.Equal(t, []int{0, 0, 0}, blockedOn(t, d))

	err, waited = waitsThenCommits(`INSERT INTO room_out_of_order (room_id, nights, reason)
		SELECT id, daterange('2030-12-11', '2030-12-12'), 'leak' FROM rooms WHERE number = $1`, []any{"102"}, func() error {
		_, err := d.Store.AssignRoom(ctx, second.ID, "102", "", domain.Date{})
		return err
	})
	assert.True(t, waited, "the guest's room waits for out of order")
	assert.ErrorIs(t, err, domain.ErrConflict, "and is refused once it is committed")

	// Control: without the triggers, 103 goes out of order with a guest in it.
	_, err = d.Pool.Exec(ctx, `DROP TRIGGER room_out_of_order_has_no_guest ON room_assignments;
		DROP TRIGGER room_out_of_order_has_no_guest ON room_out_of_order`)
	require.NoError(t, err)
	err, _ = waitsThenCommits(assignSQL, []any{second.ID, "103"}, func() error {
		_, err := d.Store.PutRoomOutOfOrder(ctx, "h1", "103", dec11, dec12, "leak")
		return err
	})
	require.NoError(t, err, "control: out of order went through")
	var both int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM room_out_of_order o JOIN room_assignments a
		ON a.room_id = o.room_id AND a.nights && o.nights`).Scan(&both))
	assert.Equal(t, 1, both, "control: a guest in a room out of order")
}

// TestRacingAGuestAndOutOfOrderLeaveOneOfThem: six rooms, each asked at once for a guest and to
// go out of order on the same night: each room has exactly one of them, never both.
func TestRacingAGuestAndOutOfOrderLeaveOneOfThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 20)
	numbers := []string{"201", "202", "203", "204", "205", "206"}
	_, err := d.Store.PutRooms(ctx, "h1", "double", numbers)
	require.NoError(t, err)
	for i, n := range numbers {
		id := hold(t, d, "g"+n, stay3, 1).ID
		errs := make([]error, 2)
		testsuite.Race(2, func(j int) {
			if j == 0 {
				_, errs[j] = d.Store.AssignRoom(ctx, id, n, "", domain.Date{})
			} else {
				_, errs[j] = d.Store.PutRoomOutOfOrder(ctx, "h1", n, dec11, dec12, "leak")
			}
		})
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
			} else {
				assert.ErrorIs(t, err, domain.ErrConflict, "round %d", i)
			}
		}
		assert.Equal(t, 1, won, "room %s has its guest or is out of order, not both", n)
	}
	var both int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM room_out_of_order o JOIN room_assignments a
		ON a.room_id = o.room_id AND a.nights && o.nights`).Scan(&both))
	assert.Zero(t, both)
}
