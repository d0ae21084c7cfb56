package db_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestACutOffStandbyIsNotTakenForCaughtUp: a standby that has lost its primary
// (replication cut, as in a network partition: the walsender sends nothing more) has replayed all
// it received, so receive LSN = replay LSN and replica.close measures 0 lag, however far the
// primary has moved on. Searches then read stale stock forever. The lag must be measured against
// the primary (or at least the receive age), not only the standby's own receive/replay gap.
// Here the walsender is frozen (SIGSTOP) when the standby is caught up, the primary writes, and
// 2.5 s later (bound 1 s) the search still answers 5 rooms from the standby instead of 3.
func TestACutOffStandbyIsNotTakenForCaughtUp(t *testing.T) {
	t.Parallel()
	r := testsuite.StartReplicated(t)
	ctx := context.Background()
	bounded := db.NewStore(r.Primary, 0)
	bounded.ReadFrom(r.Standby, time.Second)
	in := domain.NewDate(2031, 3, 1)
	stay := domain.Stay{CheckIn: in, CheckOut: in.AddDays(2)}
	setRooms := func(n int) {
		require.NoError(t, bounded.SetInventory(ctx, db.SetInventoryParams{HotelID: "h-cut", RoomTypeID: "double",
			From: stay.CheckIn, To: stay.CheckOut, TotalRooms: n, Rate: &testsuite.TestRate}))
	}
	left := func() int {
		rooms, err := bounded.Availability(ctx, "h-cut", "", stay)
		require.NoError(t, err)
		require.Len(t, rooms, 1)
		return rooms[0].Available
	}
	setRooms(5)
	r.WaitReplayed(t)
	require.Equal(t, 5, left())

	// Cut replication as a network partition does: the primary's walsender stops sending (it is
	// frozen), the standby's walreceiver waits on its connection (wal_receiver_timeout, 60 s).
	require.Eventually(t, func() bool { // caught up: all received is replayed
		var eq bool
		return r.Standby.QueryRow(ctx, `SELECT pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()`).Scan(&eq) == nil && eq
	}, 20*time.Second, 20*time.Millisecond)
	var sender int
	require.NoError(t, r.Primary.QueryRow(ctx, `SELECT pid FROM pg_stat_replication LIMIT 1`).Scan(&sender))
	require.NoError(t, syscall.Kill(sender, syscall.SIGSTOP))
	t.Cleanup(func() { _ = syscall.Kill(sender, syscall.SIGCONT) })

	setRooms(3) // the primary moves on; the standby never hears of it
	var behind bool
	require.NoError(t, r.Standby.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn() < $1::pg_lsn`,
		currentLSN(t, r)).Scan(&behind))
	require.True(t, behind, "the standby is behind the primary")
	var rcv, rpl *string
	var paused bool
	require.NoError(t, r.Standby.QueryRow(ctx, `SELECT pg_last_wal_receive_lsn()::text, pg_last_wal_replay_lsn()::text, pg_is_wal_replay_paused()`).Scan(&rcv, &rpl, &paused))
	t.Logf("receive %v replay %v paused %v", deref(rcv), deref(rpl), paused)
	time.Sleep(2500 * time.Millisecond) // well past the 1 s bound and the next measure
	assert.Equal(t, 3, left(), "a standby cut off from its primary, seconds behind, must not answer searches")
}

func currentLSN(t *testing.T, r *testsuite.Replicated) string {
	var lsn string
	require.NoError(t, r.Primary.QueryRow(context.Background(), `SELECT pg_current_wal_lsn()::text`).Scan(&lsn))
	return lsn
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}
