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

// TestAnIdlePrimarysCaughtUpStandbyServesSearches (a control that passes): with the
// primary idle for longer than the bound, a caught-up standby (receive LSN = replay LSN) still
// serves searches, as replica.close intends. Which node answered is seen from the standby pool's
// acquisitions: within one measure interval a read from the standby acquires it once, a read from
// the primary not at all.
func TestAnIdlePrimarysCaughtUpStandbyServesSearches(t *testing.T) {
	t.Parallel()
	r := testsuite.StartReplicated(t)
	ctx := context.Background()
	s := db.NewStore(r.Primary, 0)
	s.ReadFrom(r.Standby, time.Second)
	in := domain.NewDate(2031, 3, 1)
	stay := domain.Stay{CheckIn: in, CheckOut: in.AddDays(2)}
	require.NoError(t, s.SetInventory(ctx, db.SetInventoryParams{HotelID: "h-idle", RoomTypeID: "double",
		From: stay.CheckIn, To: stay.CheckOut, TotalRooms: 5, Rate: &testsuite.TestRate}))
	r.WaitReplayed(t)
	search := func() {
		rooms, err := s.Availability(ctx, "h-idle", "", stay)
		require.NoError(t, err)
		require.Len(t, rooms, 1)
		require.Equal(t, 5, rooms[0].Available)
	}
	readsStandby := func() bool {
		search() // measures the lag (at most once a second)
		before := r.Standby.Stat().AcquireCount()
		search() // goes by that measure
		return r.Standby.Stat().AcquireCount()-before == 1
	}
	var rcv, rpl string
	require.NoError(t, r.Standby.QueryRow(ctx, `SELECT pg_last_wal_receive_lsn()::text, pg_last_wal_replay_lsn()::text`).Scan(&rcv, &rpl))
	t.Logf("caught up: receive %s, replay %s", rcv, rpl)

	time.Sleep(1200 * time.Millisecond) // a new measure; the last transaction ~1 s old
	time.Sleep(2 * time.Second)         // the primary idle well past the 1 s bound
	var age float64
	require.NoError(t, r.Standby.QueryRow(ctx, `SELECT pg_last_wal_receive_lsn()::text, pg_last_wal_replay_lsn()::text,
		EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())`).Scan(&rcv, &rpl, &age))
	t.Logf("idle: receive %s, replay %s, last replayed transaction %.1f s old", rcv, rpl, age)
	assert.True(t, readsStandby(), "a caught-up standby of an idle primary trails by nothing: it serves searches")
}
