package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// A reservation that waits for a lock another transaction holds says, in its timing record,
// which lock it waited for, how long, and who held it: through the batch writer (whose 50 ms
// bound sends it back to wait alone), alone (batching off), and on the full path.
func TestReserveTimingNamesTheLockItWaitedFor(t *testing.T) {
	t.Parallel()
	const held = 300 * time.Millisecond
	locks := map[string]string{
		"units":              `SELECT 1 FROM inventory i JOIN resources r ON r.id = i.resource_id WHERE r.hotel_id = $1::text FOR UPDATE OF i`,
		"customer hold lock": `SELECT pg_advisory_xact_lock(hashtextextended('holds:' || $1::text, 0))`,
	}
	for _, path := range []string{"batch", "alone", "full"} {
		for lock, query := range locks {
			t.Run(path+"/"+lock, func(t *testing.T) {
				t.Parallel()
				d := testsuite.NewDatabase(t)
				ctx := context.Background()
				hotel := fmt.Sprintf("timing-%s-%d", path, len(lock))
				d.SetInventory(t, hotel, "double", dec10, dec13, 1)
				d.Store.SetBatching(path == "batch")
				p := holdParams("c-"+hotel, "k", stay3, 1)
				p.Request.HotelID, p.MaxActiveHolds = hotel, 2
				if path == "full" { // a low-stock threshold sends a direct sale down the full path
					_, err := d.Pool.Exec(ctx, `INSERT INTO stock_alert_thresholds (hotel_id, room_type, threshold) VALUES ($1, 'double', 1)`, hotel)
					require.NoError(t, err)
				}

				tx, err := d.Pool.Begin(ctx)
				require.NoError(t, err)
				arg := hotel
				if lock == "customer hold lock" {
					arg = p.Request.CustomerID
				}
				_, err = tx.Exec(ctx, query, arg)
				if err != nil {
					_ = tx.Rollback(ctx)
					require.NoError(t, err)
				}
				committed := make(chan error, 1)
				t.Cleanup(func() { <-committed })
				holder := tx.Conn().PgConn().PID()
				go func() { // held for 300 ms from when the reservation begins to wait, however slow the machine
					for blocked := false; !blocked; time.Sleep(5 * time.Millisecond) {
						_ = d.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
							WHERE $1 = ANY (pg_blocking_pids(pid)))`, int64(holder)).Scan(&blocked)
					}
					time.Sleep(held)
					committed <- tx.Commit(ctx) // the only use of tx from here on
				}()

				rctx, timing := db.WithReserveTiming(ctx)
				start := time.Now()
				b, err := d.Store.Reserve(rctx, p)
				took := time.Since(start)
				require.NoError(t, err)
				require.Equal(t, domain.StatusHold, b.Status)
				times := timing.Times()
				trips, waits := times.Summary()
				t.Logf("took %s; path %s, queued %s, batch %d, sent back %v, acquire %s; trips: %s; locks: %s",
					took, times.Path, times.Queued, times.BatchSize, times.SentBack, times.Acquire, trips, waits)

				var named *db.LockWait
				for i, w := range times.Locks {
					if w.Lock == lock && !w.TimedOut {
						named = &times.Locks[i]
					}
				}
				require.NotNil(t, named, "the record names the %s it waited %s for: %s", lock, took, waits)
				assert.Greater(t, named.Waited, held/3, "the wait's length")
				assert.LessOrEqual(t, named.Waited, took)
				assert.Contains(t, named.Holder, "idle in transaction", "who held it")
				if path == "batch" {
					assert.Equal(t, "alone", times.Path, "the last way it ran")
					assert.True(t, times.SentBack, "the writer waits 50 ms at most, then sends it back")
					assert.Equal(t, 1, times.BatchSize)
					require.NotEmpty(t, times.Locks)
					first := times.Locks[0]
					assert.Equal(t, db.LockWait{Lock: lock, Step: "reserve_stay", TimedOut: true}, db.LockWait{Lock: first.Lock,
						Step: first.Step, TimedOut: first.TimedOut}, "the writer's bounded wait, named: %s", waits)
				} else {
					assert.Equal(t, path, times.Path)
				}
				assert.Greater(t, times.RoundTrips(), held/2, "the trips hold the wait")
			})
		}
	}
}
