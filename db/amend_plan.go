package db

import (
	"context"
	"errors"
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

// replanSale judges the move of booking b, locked, to the plan of to, the stay it asks for, as
// the plan stands in tx (the new stay's sale rules, narrowed to the plan, were judged under its
// room type's sale lock before): the plan's price of one unit over every night of the new stay,
// and the terms and policy the booking takes with it (the default plan's booking keeps no terms
// and takes the hotel's policy as it stands). refusal says why the plan cannot sell the stay, as
// a reservation's would. A supplier's booking keeps its plan, and a booking moves neither into
// nor out of a deposit plan (its deposit and balance date would have to move): ErrNotAmendable.
func replanSale(ctx context.Context, tx pgx.Tx, b domain.Booking, to domain.Units) (sale *plannedSale, refusal string, err error) {
	plan, err := getRatePlan(ctx, tx, b.HotelID, to.RatePlan)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return nil, "hotel " + b.HotelID + " has no rate plan " + to.RatePlan, nil
	case err != nil:
		return nil, "", err
	case b.PlanChangeLimit(plan) != "":
		return nil, "", fmt.Errorf("%w: %s", ErrNotAmendable, b.PlanChangeLimit(plan))
	}
	sale, refusal, err = planSale(ctx, tx, ReserveParams{ChannelID: b.ChannelID, Request: domain.HoldRequest{HotelID: b.HotelID,
		RoomTypeID: to.RoomTypeID, Stay: to.Stay(), RatePlan: to.RatePlan}})
	switch {
	case err != nil || refusal != "":
		return nil, refusal, err
	case sale.unit.Currency != b.Price.Currency:
		return nil, fmt.Sprintf("rate plan %s prices the stay in %s, the booking is in %s", sale.code, sale.unit.Currency,
			b.Price.Currency), nil
	}
	if to.RatePlan == domain.DefaultRatePlan {
		sale.policy = domain.CancellationPolicy{}
		err = tx.QueryRow(ctx, `SELECT `+policyJSON+` FROM hotels h WHERE h.id = $1`, b.HotelID).Scan(&sale.policy)
	}
	return sale, "", err
}

// replan prices amendment a's stay to afresh by the new plan's sale, with the discount the new
// stay earns, and records what the booking takes of the plan.
func replan(a *domain.Amendment, sale *plannedSale, to domain.Units, discount *domain.SaleRule) {
	a.PriceAfter, a.Discount = sale.price(to.Quantity), 0
	if discount != nil {
		a.PriceAfter, a.Discount = discount.Apply(a.PriceAfter, to.Quantity)
	}
	a.Policy = &sale.policy
	if to.RatePlan != domain.DefaultRatePlan {
		a.PlanTerms = &sale.terms
	}
}
