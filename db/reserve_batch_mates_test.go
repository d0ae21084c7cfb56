package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Batched reservations (reserve_batch.go, migration 00027) beside their batch-mates: each is
// answered as it would be alone, and the batch leaves nothing set on its connection.

// Alone, Reserve fails with a lock timeout only when a lock it needs stays held for the whole
// lock timeout. In a batch, one booking's timeout drops every later lock wait of the batch to
// 10 ms (00027, the set_config('lock_timeout', '10', true) calls): a batch-mate whose night is
// locked for a moment (here for less than the lock timeout) then fails with 55P03, an answer it
// would not have got alone.
func TestABatchMateOfATimedOutBookingWaitsItsFullLockTimeout(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	const lockTimeout = time.Second
	// Dec 10 is locked for the whole test: the booking that needs it times out, as alone.
	long, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer long.Rollback(ctx) //nolint:errcheck
	_, err = long.Exec(ctx, `SELECT 1 FROM inventory WHERE unit_start = $1 FOR UPDATE`, dec10.Time())
	require.NoError(t, err)
	var longPID uint32
	require.NoError(t, long.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&longPID))

	store := batchStore(d, lockTimeout)
	release := db.HoldBatches(store)
	defer release()
	ps := []db.ReserveParams{holdParams("a", "k", nightsFrom(dec10, 1), 1), holdParams("b", "k", nightsFrom(dec10.AddDays(2), 1), 1)}
	errs := make([]error, len(ps))
	got := make([]domain.Booking, len(ps))
	done := make(chan struct{}, len(ps))
	for i := range ps {
		go func() {
			got[i], errs[i] = store.Reserve(ctx, ps[i])
			done <- struct{}{}
		}()
	}
	require.Eventually(t, func() bool { return db.Queued(store, "h1", "double") == len(ps) }, 10*time.Second, time.Millisecond)
	release()
	// Once the batch waits on Dec 10, Dec 12 is locked for 0.9 of the lock timeout from 0.3 on:
	// held when the batch's wait on Dec 10 ends, and never as long as the lock timeout.
	require.Eventually(t, func() bool {
		var waiting bool
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE $1::int = ANY (pg_blocking_pids(pid)))`, longPID).Scan(&waiting))
		return waiting
	}, 10*time.Second, time.Millisecond)
	time.Sleep(lockTimeout * 3 / 10)
	brief, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer brief.Rollback(ctx) //nolint:errcheck
	_, err = brief.Exec(ctx, `SELECT 1 FROM inventory WHERE unit_start = $1 FOR UPDATE`, dec10.AddDays(2).Time())
	require.NoError(t, err)
	time.Sleep(lockTimeout * 9 / 10)
	require.NoError(t, brief.Rollback(ctx))
	for range ps {
		<-done
	}
	var pgErr *pgconn.PgError
	require.ErrorAs(t, errs[0], &pgErr, "Dec 10 stayed locked")
	assert.Equal(t, "55P03", pgErr.Code)
	require.NoError(t, errs[1], "Dec 12 was locked for less than the lock timeout")
	assert.Equal(t, domain.StatusHold, got[1].Status)
}

// After a batch that took the set-based path (the history trigger skipped its update), no
// connection of the pool keeps bookflow.unit_history: a later release on any of them records
// its unit changes.
func TestUnitHistorySettingEndsWithTheBatch(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	store := batchStore(d, 0)
	got, errs := inOneBatch(t, store, nil, []db.ReserveParams{holdParams("a", "k", stay3, 1), holdParams("b", "k", stay3, 1),
		holdParams("c", "k", stay3, 1)})
	for i := range got {
		require.NoError(t, errs[i])
		require.Equal(t, domain.StatusHold, got[i].Status)
	}
	conns := d.Pool.AcquireAllIdle(ctx)
	for _, c := range conns {
		var v string
		require.NoError(t, c.QueryRow(ctx, `SELECT COALESCE(current_setting('bookflow.unit_history', true), '')`).Scan(&v))
		assert.Empty(t, v, "connection %d", c.Conn().PgConn().PID())
		c.Release()
	}
	for _, b := range got {
		_, err := store.Release(ctx, b.ID, domain.StatusCancelled)
		require.NoError(t, err)
		var n int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM inventory_changes WHERE booking_id = $1
			AND reserved_after < reserved_before`, b.ID).Scan(&n))
		assert.Equal(t, 3, n, "the release of %s recorded its nights", b.ID)
	}
	assert.Empty(t, oversold(t, d, "h1", "double", dec10, dec13))
}

// One writer per room type runs one transaction at a time: a reservation waiting on a locked
// night (for up to the lock timeout) holds up every other reservation of the room type in the
// process, even one whose nights nobody locks. Alone (unbatched, the control) that one is held
// at once; batched it waits behind the other and misses its deadline.
func TestAReservationOfFreeNightsDoesNotWaitBehindALockedOne(t *testing.T) {
	t.Parallel()
	for _, batching := range []bool{false, true} {
		t.Run(map[bool]string{false: "unbatched", true: "batched"}[batching], func(t *testing.T) {
			d := testsuite.NewDatabase(t)
			ctx := context.Background()
			d.SetInventory(t, "h1", "double", dec10, dec13, 5)
			const lockTimeout = 2 * time.Second
			long, err := d.Pool.Begin(ctx)
			require.NoError(t, err)
			defer long.Rollback(ctx) //nolint:errcheck
			_, err = long.Exec(ctx, `SELECT 1 FROM inventory WHERE unit_start = $1 FOR UPDATE`, dec10.Time())
			require.NoError(t, err)
			var longPID uint32
			require.NoError(t, long.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&longPID))

			store := db.NewStore(d.Pool, lockTimeout)
			store.SetBatching(batching)
			blocked := make(chan error, 1)
			go func() {
				_, err := store.Reserve(ctx, holdParams("a", "k", nightsFrom(dec10, 1), 1))
				blocked <- err
			}()
			require.Eventually(t, func() bool {
				var waiting bool
				require.NoError(t, d.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
					WHERE $1::int = ANY (pg_blocking_pids(pid)))`, longPID).Scan(&waiting))
				return waiting
			}, 10*time.Second, time.Millisecond, "the reservation of Dec 10 waits on its lock")

			soon, cancel := context.WithTimeout(ctx, lockTimeout/4)
			defer cancel()
			b, err := store.Reserve(soon, holdParams("b", "k", nightsFrom(dec10.AddDays(2), 1), 1))
			require.NoError(t, err, "Dec 12 is not locked")
			assert.Equal(t, domain.StatusHold, b.Status)
			require.Error(t, <-blocked, "Dec 10 stayed locked")
		})
	}
}

// Within one batch the same holds: the batch locks all its stays' nights in one statement, so
// one locked night keeps every booking of the batch waiting for the whole lock timeout, also
// those whose nights nobody locks (alone they are held at once).
func TestABatchMateOfFreeNightsDoesNotWaitForALockedNight(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	// Long enough that waiting for it is told from a loaded machine's slowness (CI measured 1.7 s
	// for the free night with both cores busy).
	const lockTimeout = 5 * time.Second
	long, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer long.Rollback(ctx) //nolint:errcheck
	_, err = long.Exec(ctx, `SELECT 1 FROM inventory WHERE unit_start = $1 FOR UPDATE`, dec10.Time())
	require.NoError(t, err)

	store := batchStore(d, lockTimeout)
	release := db.HoldBatches(store)
	defer release()
	ps := []db.ReserveParams{holdParams("a", "k", nightsFrom(dec10, 1), 1), holdParams("b", "k", nightsFrom(dec10.AddDays(2), 1), 1)}
	took := make([]time.Duration, len(ps))
	errs := make([]error, len(ps))
	done := make(chan struct{}, len(ps))
	for i := range ps {
		go func() {
			start := time.Now()
			_, errs[i] = store.Reserve(ctx, ps[i])
			took[i] = time.Since(start)
			done <- struct{}{}
		}()
	}
	require.Eventually(t, func() bool { return db.Queued(store, "h1", "double") == len(ps) }, 10*time.Second, time.Millisecond)
	release()
	for range ps {
		<-done
	}
	require.Error(t, errs[0], "Dec 10 stayed locked")
	require.NoError(t, errs[1])
	assert.Less(t, took[1], lockTimeout/2, "Dec 12 was never locked")
}

// A batch with a stay over a night split between channels: that booking goes to the full path
// (which sells a direct sale from the pool), the others are decided in the batch. (Passes.)
func TestABatchSendsAStayOverASplitNightToTheFullPath(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 3)
	require.NoError(t, d.Store.PutChannel(ctx, db.Channel{ID: "A"}))
	require.NoError(t, d.Store.SetAllocations(ctx, []db.AllocationSet{
		{HotelID: "h1", RoomTypeID: "double", ChannelID: "A", From: dec10.AddDays(2), To: dec13, Allotted: 2}}))
	ps := []db.ReserveParams{holdParams("a", "k", nightsFrom(dec10, 1), 1), holdParams("b", "k", nightsFrom(dec10.AddDays(1), 2), 1),
		holdParams("c", "k", nightsFrom(dec10.AddDays(2), 1), 1), holdParams("e", "k", nightsFrom(dec10, 2), 2)}
	got, errs := inOneBatch(t, batchStore(d, 0), nil, ps)
	for i := range ps {
		require.NoError(t, errs[i], "reservation %d", i)
	}
	assert.Equal(t, domain.StatusHold, got[0].Status)
	assert.Equal(t, domain.StatusHold, got[3].Status)
	// b and c both go to the full path, concurrently: one of them gets the pool's room of Dec 12.
	assert.ElementsMatch(t, []domain.Status{domain.StatusHold, domain.StatusRejected}, []domain.Status{got[1].Status, got[2].Status})
	assert.Equal(t, 1, d.Reserved(t, "h1", "double", stay3)[2])
	assert.Empty(t, oversold(t, d, "h1", "double", dec10, dec13))
	d.AssertInventoryMatchesBookings(t)
}

// A stop-sell committed while a batch began (after its first look at the rules, before it got
// the sale lock) applies to every booking of the batch, as to reserve_stay (00020). (Passes.)
func TestARuleCommittedWhileABatchBeganApplies(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)            //nolint:errcheck
	lockHotelAndStopSell(t, tx, "h1") // Dec 11

	store := batchStore(d, 5*time.Second)
	release := db.HoldBatches(store)
	defer release()
	limited := holdParams("l", "k", stay3, 1)
	limited.MaxActiveHolds = 2
	ps := []db.ReserveParams{holdParams("a", "k", stay3, 1), holdParams("b", "k", nightsFrom(dec10, 1), 1), limited}
	got, errs := make([]domain.Booking, len(ps)), make([]error, len(ps))
	done := make(chan struct{}, len(ps))
	for i := range ps {
		go func() {
			got[i], errs[i] = store.Reserve(ctx, ps[i])
			done <- struct{}{}
		}()
	}
	require.Eventually(t, func() bool { return db.Queued(store, "h1", "double") == len(ps) }, 10*time.Second, time.Millisecond)
	release()
	waitForLockWaiters(t, d, 1)
	require.NoError(t, tx.Commit(ctx))
	for range ps {
		<-done
	}
	for i := range ps {
		require.NoError(t, errs[i])
	}
	assert.Equal(t, domain.StatusRejected, got[0].Status, "over the stop-sell")
	assert.Equal(t, domain.StatusHold, got[1].Status)
	assert.Equal(t, domain.StatusRejected, got[2].Status, "over the stop-sell")
	assert.Equal(t, []int{1, 0, 0}, d.Reserved(t, "h1", "double", stay3))
	d.AssertInventoryMatchesBookings(t)
}
