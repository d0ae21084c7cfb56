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

// TestASearchIsNotServedFromALaggingStandby: searches read a standby while it trails the primary
// by at most the bound; once it falls further behind (its replay paused, the primary writing on)
// they read the primary and see the latest stock. The control: a store that allows an hour's lag
// reads the same standby and sees the stale stock, so the standby is what the bound kept away.
func TestASearchIsNotServedFromALaggingStandby(t *testing.T) {
	t.Parallel()
	r := testsuite.StartReplicated(t)
	ctx := context.Background()
	bounded, lenient := db.NewStore(r.Primary, 0), db.NewStore(r.Primary, 0)
	bounded.ReadFrom(r.Standby, time.Second)
	lenient.ReadFrom(r.Standby, time.Hour)
	in := domain.NewDate(2031, 3, 1)
	stay := domain.Stay{CheckIn: in, CheckOut: in.AddDays(2)}
	setRooms := func(n int) {
		require.NoError(t, bounded.SetInventory(ctx, db.SetInventoryParams{HotelID: "h-standby", RoomTypeID: "double",
			From: stay.CheckIn, To: stay.CheckOut, TotalRooms: n, Rate: &testsuite.TestRate}))
	}
	left := func(s *db.Store) int {
		rooms, err := s.Availability(ctx, "h-standby", "", stay)
		require.NoError(t, err)
		require.Len(t, rooms, 1)
		return rooms[0].Available
	}
	setRooms(5)
	r.WaitReplayed(t)
	require.Equal(t, 5, left(bounded))
	require.Equal(t, 5, left(lenient))

	r.WaitReplayed(t) // everything the primary wrote so far (the control's reference) is on the standby
	_, err := r.Standby.Exec(ctx, `SELECT pg_wal_replay_pause()`)
	require.NoError(t, err)
	setRooms(3)
	time.Sleep(1500 * time.Millisecond) // past the bound, and past the next measure of the lag
	assert.Equal(t, 3, left(bounded), "a standby past the bound is not read: the primary answers")
	assert.Equal(t, 5, left(lenient), "the control: the standby itself still says 5")

	_, err = r.Standby.Exec(ctx, `SELECT pg_wal_replay_resume()`)
	require.NoError(t, err)
	r.WaitReplayed(t)
	assert.Equal(t, 3, left(lenient), "caught up, the standby agrees")
}
