package db_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// BenchmarkReserve measures reservations of 3 nights by one client, and by 8 concurrent clients
// on one hot room type and spread over 50 hotels, for a hotel without sale rules (the one-round-trip path) and
// one with a rule in force (the full path), so a change to either path is measured beside the
// other on the same machine:
//
//	go test -run '^$' -bench Reserve -benchtime 3s ./db/
func BenchmarkReserve(b *testing.B) {
	d := testsuite.NewDatabase(b)
	ctx := context.Background()
	const hotels = 50
	for _, h := range []string{"hot", "ruled"} {
		require.NoError(b, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: h, RoomTypeID: "double",
			From: dec10, To: dec10.AddDays(30), TotalRooms: 1_000_000_000, Rate: &testsuite.TestRate}))
	}
	d.SetInventory(b, "ruled", "suite", dec10, dec13, 1)
	createRule(b, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "ruled", RoomTypeID: "suite",
		From: dec10, To: dec13, Reason: "other"})
	for h := range hotels {
		require.NoError(b, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: fmt.Sprintf("spread-%d", h),
			RoomTypeID: "double", From: dec10, To: dec10.AddDays(30), TotalRooms: 1_000_000_000, Rate: &testsuite.TestRate}))
	}
	var n atomic.Int64
	run := func(b *testing.B, hotel func(i int64) string, stay func(i int64) domain.Stay) {
		b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0))) // 8 clients
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := n.Add(1)
				p := holdParams(fmt.Sprintf("bench-%d", i), "k", stay(i), 1)
				p.Request.HotelID, p.HoldTTL = hotel(i), 10*time.Minute
				booking, err := d.Store.Reserve(ctx, p)
				if err != nil || booking.Status != domain.StatusHold {
					b.Errorf("reservation %d: %v %s", i, err, booking.Status)
				}
			}
		})
	}
	b.Run("one client, no rules (one round trip)", func(b *testing.B) {
		for b.Loop() {
			i := n.Add(1)
			p := holdParams(fmt.Sprintf("bench-%d", i), "k", stay3, 1)
			p.Request.HotelID = "hot"
			if booking, err := d.Store.Reserve(ctx, p); err != nil || booking.Status != domain.StatusHold {
				b.Fatalf("reservation %d: %v %s", i, err, booking.Status)
			}
		}
	})
	b.Run("one hot room type, no rules (one round trip)", func(b *testing.B) {
		run(b, func(int64) string { return "hot" }, func(int64) domain.Stay { return stay3 })
	})
	b.Run("one hot room type, a rule in force (full path)", func(b *testing.B) {
		run(b, func(int64) string { return "ruled" }, func(int64) domain.Stay { return stay3 })
	})
	b.Run("spread over 50 hotels, no rules (one round trip)", func(b *testing.B) {
		run(b, func(i int64) string { return fmt.Sprintf("spread-%d", i%hotels) }, func(i int64) domain.Stay {
			in := dec10.AddDays(int(i % 27))
			return domain.Stay{CheckIn: in, CheckOut: in.AddDays(3)}
		})
	})
}
