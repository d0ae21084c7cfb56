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

// Review of batched reservations (reserve_batch.go, migration 00027).

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
