package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// planRates prices the rooms an amendment adds to a booking sold under a plan other than the
// default one at that plan's price, as the plan stands: rates holds, per night of the new room
// type's resource, the room type's rate each added room was taken at (reline), and each is
// replaced by the plan's. A booking of the default plan is left as it is. refusal says why the
// plan cannot sell the amended stay (a room type it does not sell, a night it has no price for).
func planRates(ctx context.Context, tx pgx.Tx, b domain.Booking, to domain.Units, resource int64,
	rates map[unitKey]int64) (refusal string, _ error) {
	if b.RatePlan == "" || b.RatePlan == domain.DefaultRatePlan || len(rates) == 0 {
		return "", nil
	}
	plans, err := ratePlans(ctx, tx, b.HotelID)
	if err != nil {
		return "", err
	}
	pricer := domain.NewPlanPricer(plans)
	plan, ok := pricer.Plan(b.RatePlan)
	switch {
	case !ok:
		return "", fmt.Errorf("booking %s: its rate plan %s is gone", b.ID, b.RatePlan) // plans are never deleted
	case !plan.Sells(to.RoomTypeID):
		return fmt.Sprintf("rate plan %s does not sell room type %s", plan.Code, to.RoomTypeID), nil
	}
	nights, err := roomNightRates(ctx, tx, b.HotelID, to.RoomTypeID, to.CheckIn, to.CheckOut)
	if err != nil {
		return "", err
	}
	priced, err := pricer.Nightly(plan.Code, nights[to.RoomTypeID])
	if err != nil {
		return "", err
	}
	byNight := map[domain.Date]domain.PlanNight{}
	for _, n := range priced {
		byNight[n.Date] = n
	}
	for k := range rates {
		if k.resourceID != resource {
			continue
		}
		n, ok := byNight[domain.DateOf(k.start, time.UTC)]
		switch {
		case !ok || n.Amount == nil:
			return fmt.Sprintf("rate plan %s has no price on the night of %s: %s", plan.Code, n.Date, n.Why), nil
		case n.Currency != b.Price.Currency:
			return fmt.Sprintf("rate plan %s prices the night of %s in %s, the booking is in %s", plan.Code, n.Date,
				n.Currency, b.Price.Currency), nil
		}
		rates[k] = *n.Amount
	}
	return "", nil
}
