package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// BenchmarkReserveTimed is BenchmarkReserve's one client with the timing record the Reserve
// activity asks for (db.WithReserveTiming), beside the same without it:
//
//	go test -run '^$' -bench 'Reserve(Timed)?/one_client' -benchtime 3s ./db/
func BenchmarkReserveTimed(b *testing.B) {
	d := testsuite.NewDatabase(b)
	d.SetInventory(b, "hot", "double", dec10, dec10.AddDays(30), 1_000_000_000)
	for _, timed := range []bool{false, true} {
		b.Run(fmt.Sprintf("one client, timed %v", timed), func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				ctx := context.Background()
				if timed {
					ctx, _ = db.WithReserveTiming(ctx)
				}
				p := holdParams(fmt.Sprintf("bench-%v-%d", timed, i), "k", stay3, 1)
				p.Request.HotelID = "hot"
				if booking, err := d.Store.Reserve(ctx, p); err != nil || booking.Status != domain.StatusHold {
					b.Fatalf("reservation %d: %v %s", i, err, booking.Status)
				}
			}
		})
	}
}
