package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// ARIBenchHotel makes hotel "big" as issue 35's performance goal has it: 10 room types on sale
// for 365 nights, 20 plans (BAR, 9 roots with rates of their own on every night, 10 derived in
// chains of up to 3), each plan closed to arrival on Saturdays (52 rules a plan), and a minimum
// stay of every plan and a maximum stay per room type over the year.
func ARIBenchHotel(b testing.TB, d *testsuite.Database) {
	ctx := context.Background()
	end := dec10.AddDays(365)
	for rt := range 10 {
		require.NoError(b, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "big", RoomTypeID: fmt.Sprintf("rt%d", rt),
			From: dec10, To: end, TotalRooms: 10, Rate: &testsuite.TestRate}))
	}
	plan := func(code string, from *domain.Derivation) {
		p := flexible(code, "")
		p.HotelID, p.DerivedFrom = "big", from
		_, err := d.Store.PutRatePlan(ctx, p)
		require.NoError(b, err)
	}
	for i := 1; i <= 9; i++ {
		code := fmt.Sprintf("R%d", i)
		plan(code, nil)
		for rt := range 10 {
			_, err := d.Store.SetPlanRates(ctx, "big", code, fmt.Sprintf("rt%d", rt), dec10, end,
				domain.Money{Amount: int64(9000 + 100*i), Currency: "EUR"})
			require.NoError(b, err)
		}
	}
	for i := 1; i <= 10; i++ {
		parent := fmt.Sprintf("R%d", i%9+1)
		if i > 5 {
			parent = fmt.Sprintf("D%d", i-5) // chains: root, D1..D5, D6..D10
		}
		plan(fmt.Sprintf("D%d", i), &domain.Derivation{Parent: parent, Percent: "-7.5",
			Rounding: domain.Rounding{Mode: domain.RoundNearest, Step: 100}})
	}
	plans, err := d.Store.RatePlans(ctx, "big")
	require.NoError(b, err)
	require.Len(b, plans, 20)
	yes := true
	var sets []domain.RestrictionSet
	for _, p := range plans {
		sets = append(sets, domain.RestrictionSet{RatePlan: p.Code, From: dec10, To: end, Weekdays: []string{"sat"},
			ClosedToArrival: &yes})
	}
	sets = append(sets, domain.RestrictionSet{From: dec10, To: end, RestrictionBounds: minStay(2)})
	for rt := range 10 {
		sets = append(sets, domain.RestrictionSet{RoomTypeID: fmt.Sprintf("rt%d", rt), From: dec10, To: end,
			RestrictionBounds: domain.RestrictionBounds{MaxStay: intp(14)}})
	}
	_, err = d.Store.SetRestrictions(ctx, "big", "bench", sets)
	require.NoError(b, err)
}

// BenchmarkARIExport is the ARI export of 365 dates x 10 room types x 20 plans (issue 35's goal:
// under 1 s), read through the store as the API reads it:
//
//	go test -run '^$' -bench ARIExport ./db/
func BenchmarkARIExport(b *testing.B) {
	d := testsuite.NewDatabase(b)
	ARIBenchHotel(b, d)
	ctx := context.Background()
	for b.Loop() {
		out, err := d.Store.ARIExport(ctx, "big", "", "", dec10, dec10.AddDays(365))
		if err != nil || len(out.RoomTypes) != 10 || len(out.RoomTypes[9].Plans) != 20 {
			b.Fatalf("export: %v", err)
		}
	}
}

// BenchmarkARIHoldCost measures what the ARI change log adds to a hold (3 nights, one client, no
// rules: the one-round-trip path): rounds of 100 holds with the log's inventory trigger disabled
// and enabled in turn on one database, so the machine's load weighs on both alike; it reports
// each mode's time per hold and their ratio:
//
//	go test -run '^$' -bench ARIHoldCost -benchtime 10x ./db/
func BenchmarkARIHoldCost(b *testing.B) {
	d := testsuite.NewDatabase(b)
	ctx := context.Background()
	require.NoError(b, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
		From: dec10, To: dec10.AddDays(30), TotalRooms: 1_000_000_000, Rate: &testsuite.TestRate}))
	const holds = 100
	var spent [2]time.Duration
	n := 0
	for b.Loop() {
		for mode, sql := range []string{`ALTER TABLE inventory DISABLE TRIGGER ari_inventory_update`,
			`ALTER TABLE inventory ENABLE TRIGGER ari_inventory_update`} {
			_, err := d.Pool.Exec(ctx, sql)
			require.NoError(b, err)
			start := time.Now()
			for range holds {
				n++
				p := holdParams(fmt.Sprintf("bench-%d", n), "k", stay3, 1)
				if booking, err := d.Store.Reserve(ctx, p); err != nil || booking.Status != domain.StatusHold {
					b.Fatalf("reservation %d: %v", n, err)
				}
			}
			spent[mode] += time.Since(start)
		}
	}
	without, with := float64(spent[0])/float64(b.N*holds), float64(spent[1])/float64(b.N*holds)
	b.ReportMetric(without, "ns/hold-without-log")
	b.ReportMetric(with, "ns/hold-with-log")
	b.ReportMetric(with/without, "ratio")
}
