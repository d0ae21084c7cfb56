package db_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// BenchmarkReservePlan measures a reservation of 3 nights under a rate plan derived from BAR with
// restrictions of its own (closed to arrival on another date, a minimum stay through the stay,
// an arrival advance) against the same reservation at BAR in a hotel with one sale rule in force
// (the full path, the baseline), one client, the two taking turns in rounds of the same run so
// the machine's load falls on both alike; it reports the plan's time as a ratio of the rule
// path's (issue 35):
//
//	go test -run '^$' -bench ReservePlan -benchtime 2000x ./db/
func BenchmarkReservePlan(b *testing.B) {
	d := testsuite.NewDatabase(b)
	ctx := context.Background()
	for _, h := range []string{"ruled", "planned"} {
		require.NoError(b, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: h, RoomTypeID: "double",
			From: dec10, To: dec10.AddDays(30), TotalRooms: 1_000_000_000, Rate: &testsuite.TestRate}))
		d.SetInventory(b, h, "suite", dec10, dec13, 1)
		createRule(b, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: h, RoomTypeID: "suite",
			From: dec10, To: dec13, Reason: "other"})
	}
	plan := flexible("NR", domain.DefaultRatePlan)
	plan.HotelID = "planned"
	_, err := d.Store.PutRatePlan(ctx, plan)
	require.NoError(b, err)
	one, advance, most := 1, 1, 3650
	for _, r := range []domain.SaleRule{
		{Kind: domain.RuleClosedToArrival, From: dec10.AddDays(20), To: dec10.AddDays(21)},
		{Kind: domain.RuleStayThrough, From: dec10, To: dec10.AddDays(30), MinLOS: &one},
		{Kind: domain.RuleArrivalAdvance, From: dec10, To: dec10.AddDays(30), MinAdvance: &advance, MaxAdvance: &most},
	} {
		r.HotelID, r.RoomTypeID, r.RatePlan = "planned", "double", "NR"
		createRule(b, d, r)
	}
	var n atomic.Int64
	reserve := func(hotel, ratePlan string) time.Duration {
		i := n.Add(1)
		p := holdParams(fmt.Sprintf("bench-%d", i), "k", stay3, 1)
		p.Request.HotelID, p.Request.RatePlan = hotel, ratePlan
		start := time.Now()
		booking, err := d.Store.Reserve(ctx, p)
		if err != nil || booking.Status != domain.StatusHold {
			b.Fatalf("reservation %d at %s: %v %s %s", i, hotel, err, booking.Status, booking.Refusal)
		}
		return time.Since(start)
	}
	var rule, planned time.Duration
	for b.Loop() {
		rule += reserve("ruled", "")
		planned += reserve("planned", "NR")
	}
	b.ReportMetric(float64(rule.Microseconds())/float64(b.N), "µs/rule-path")
	b.ReportMetric(float64(planned.Microseconds())/float64(b.N), "µs/plan-path")
	b.ReportMetric(float64(planned)/float64(rule), "x-of-rule-path")
}
