package db_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// BenchmarkReserveSyncStandby measures, side by side on a primary with a synchronous standby
// (every commit waits for the standby's flush, holding its row locks meanwhile), 32 concurrent
// clients on one hot room type (3 nights, rooms without end): the raw one-row UPDATE in a
// transaction of its own, Reserve with every reservation in a transaction of its own, and
// Reserve batched (concurrent reservations of the room type share a transaction). It reports
// ops/s and the servers' CPU per op of each and, on the batched one, the ratios to the other
// two and the mean batch:
//
//	go test -run '^$' -bench ReserveSyncStandby -benchtime 3s ./db/
//
// BOOKFLOW_BENCH_FSYNC=on keeps fsync on in both servers (a commit then costs this machine's
// disk flush, on the primary and on the standby); off by default, as in the other tests.
func BenchmarkReserveSyncStandby(b *testing.B) {
	var opts []testsuite.ReplicatedOption
	if os.Getenv("BOOKFLOW_BENCH_FSYNC") == "on" {
		opts = append(opts, testsuite.Fsync())
	}
	r := testsuite.StartReplicated(b, append(opts, testsuite.Synchronous())...)
	ctx := context.Background()
	pool, err := db.Connect(ctx, r.PrimaryURL+"&pool_max_conns=40") // a connection for each client
	require.NoError(b, err)
	b.Cleanup(pool.Close)
	unbatched, batched := db.NewStore(pool, 0), db.NewStore(pool, 0)
	unbatched.SetBatching(false)
	batched.SetBatching(true)
	require.NoError(b, batched.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
		From: dec10, To: dec10.AddDays(30), TotalRooms: 1_000_000_000, Rate: &testsuite.TestRate}))
	require.NoError(b, batched.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "sold",
		From: dec10, To: dec10.AddDays(30), TotalRooms: 0, Rate: &testsuite.TestRate}))
	var resource int64
	require.NoError(b, pool.QueryRow(ctx, `SELECT id FROM resources WHERE hotel_id = 'h1'`).Scan(&resource))

	const clients = 32
	var n atomic.Int64
	parallel := func(b *testing.B, op func(i int64) error) float64 {
		b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
		cpu := r.ServerCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := op(n.Add(1)); err != nil {
					b.Error(err)
				}
			}
		})
		ops := float64(b.N) / b.Elapsed().Seconds()
		b.ReportMetric(ops, "ops/s")
		// What each took of the servers' CPU: unlike ops/s, about the same however busy the
		// machine's other tenants keep its cores.
		b.ReportMetric(float64((r.ServerCPU()-cpu).Microseconds())/float64(b.N), "server-cpu-µs/op")
		return ops
	}
	reserveAs := func(store *db.Store, roomType string, want domain.Status) func(i int64) error {
		return func(i int64) error {
			p := holdParams(fmt.Sprintf("bench-%d", i), "k", stay3, 1)
			p.HoldTTL, p.Request.RoomTypeID = time.Hour, roomType
			booking, err := store.Reserve(ctx, p)
			if err == nil && booking.Status != want {
				err = fmt.Errorf("reservation %d is %s", i, booking.Status)
			}
			return err
		}
	}
	reserve := func(store *db.Store) func(i int64) error { return reserveAs(store, "double", domain.StatusHold) }
	var raw, alone, lost float64
	b.Run("raw one-row UPDATE", func(b *testing.B) {
		raw = parallel(b, func(int64) error {
			_, err := pool.Exec(ctx, `UPDATE inventory SET reserved = reserved + 1
				WHERE resource_id = $1 AND unit_start = $2 AND total - reserved >= 1`, resource, dec10.Time())
			return err
		})
	})
	b.Run("Reserve unbatched", func(b *testing.B) { alone = parallel(b, reserve(unbatched)) })
	b.Run("Reserve batched", func(b *testing.B) {
		runs, calls := db.BatchRuns(batched)
		ops := parallel(b, reserve(batched))
		r, c := db.BatchRuns(batched)
		if raw > 0 && alone > 0 {
			b.ReportMetric(ops/raw, "x-raw")
			b.ReportMetric(ops/alone, "x-unbatched")
		}
		if r > runs {
			b.ReportMetric(float64(c-calls)/float64(r-runs), "per-batch")
		}
	})
	// What a hold that loses costs: every reservation of a sold-out room type is refused (and
	// its booking stored REJECTED), one transaction each or batched.
	b.Run("sold out, unbatched", func(b *testing.B) {
		lost = parallel(b, reserveAs(unbatched, "sold", domain.StatusRejected))
	})
	b.Run("sold out, batched", func(b *testing.B) {
		if ops := parallel(b, reserveAs(batched, "sold", domain.StatusRejected)); lost > 0 {
			b.ReportMetric(ops/lost, "x-unbatched")
		}
	})
}
