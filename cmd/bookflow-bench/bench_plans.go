package main

import (
	"context"
	"fmt"
	"time"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// benchPlanSearch measures the search of a 7-night stay at a hotel of 10 room types sold under
// 20 rate plans (10 with rates of their own, 9 derived from them or from BAR, some in chains),
// cached and uncached, against the same search at a hotel of the same room types sold under its
// default plan alone, in the same run (issue 35's goal: at most 2x).
func benchPlanSearch(ctx context.Context, d *deps, o benchOptions, run string, search func(ctx context.Context, cached bool, path string) error) error {
	first := domain.DateOf(time.Now(), time.UTC).AddDays(30)
	stay := domain.Stay{CheckIn: first.AddDays(10), CheckOut: first.AddDays(17)}
	onePlan, twentyPlans := "bench-one-plan-"+run, "bench-twenty-plans-"+run
	for _, hotel := range []string{onePlan, twentyPlans} {
		for i := range 10 {
			if err := d.store.SetInventory(ctx, db.SetInventoryParams{HotelID: hotel, RoomTypeID: fmt.Sprintf("room-%d", i),
				From: first, To: first.AddDays(60), TotalRooms: 1_000_000, Rate: &benchRate}); err != nil {
				return err
			}
		}
	}
	plan := func(code string, from *domain.Derivation) domain.RatePlan {
		return domain.RatePlan{HotelID: twentyPlans, Code: code, Name: "Plan " + code, Board: domain.BoardRoomOnly,
			Policy: &domain.RatePlanPolicy{}, Payment: domain.PaymentRule{Kind: domain.PayInFull},
			Channels: []string{domain.AnyChannel}, DerivedFrom: from, UpdatedBy: "bench"}
	}
	for i := range 10 {
		code := fmt.Sprintf("OWN-%d", i)
		if _, err := d.store.PutRatePlan(ctx, plan(code, nil)); err != nil {
			return err
		}
		for rt := range 10 {
			if _, err := d.store.SetPlanRates(ctx, twentyPlans, code, fmt.Sprintf("room-%d", rt), first, first.AddDays(60),
				domain.Money{Amount: benchRate.Amount + int64(100*i), Currency: benchRate.Currency}); err != nil {
				return err
			}
		}
	}
	for i := range 9 {
		parent := domain.DefaultRatePlan
		if i%3 == 1 {
			parent = fmt.Sprintf("OWN-%d", i)
		} else if i%3 == 2 {
			parent = fmt.Sprintf("DER-%d", i-1) // a chain of three: OWN, DER, DER
		}
		from := &domain.Derivation{Parent: parent, Percent: "-7.5", Rounding: domain.Rounding{Mode: domain.RoundNearest, Step: 100}}
		if _, err := d.store.PutRatePlan(ctx, plan(fmt.Sprintf("DER-%d", i), from)); err != nil {
			return err
		}
	}
	path := func(hotel string) string {
		return "/hotels/" + hotel + "/availability?checkIn=" + stay.CheckIn.String() + "&checkOut=" + stay.CheckOut.String()
	}
	for _, cached := range []bool{true, false} {
		for _, hotel := range []string{onePlan, twentyPlans} {
			if err := search(ctx, cached, path(hotel)); err != nil {
				return fmt.Errorf("warming the plan search: %w", err)
			}
		}
	}
	fmt.Println("Search with rate plans: 10 room types, 7 nights; the default plan alone, then 20 plans")
	for _, cached := range []bool{true, false} {
		how := map[bool]string{true: "cached", false: "uncached"}[cached]
		base := measure(ctx, "search, one plan, "+how, o.clients, 0, o.duration, func(ctx context.Context, _ int) error {
			return search(ctx, cached, path(onePlan))
		})
		base.label = "one plan"
		base.print()
		measure(ctx, "search, 20 plans, "+how+" (goal: at most 2x the time of one plan)", o.clients, 0, o.duration,
			func(ctx context.Context, _ int) error { return search(ctx, cached, path(twentyPlans)) }).print(&base)
	}
	return nil
}
