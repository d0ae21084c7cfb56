package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bookflow/bookflow/domain"
)

// plannedSale is what a reservation under a plan other than the default one keeps of it: the
// price of one unit over the stay, and the plan's terms and policy.
type plannedSale struct {
	code   string
	unit   domain.Price
	terms  domain.PlanTerms
	policy domain.CancellationPolicy
	// balanceDueAt is when a deposit plan's balance is due (nil: the plan takes no deposit); the
	// reservation keeps it only while it is ahead by the database's clock.
	balanceDueAt *time.Time
}

// planSale reads the plan a reservation names, as it stands in the reservation's transaction,
// and prices one unit over the stay from the nights' rates (domain.PlanPricer). refusal, with
// nothing else, says why the plan cannot sell the stay: the API checked the plan before the
// workflow started, so these are changes made since, stored as the booking's refusal.
func planSale(ctx context.Context, tx pgx.Tx, p ReserveParams) (sale *plannedSale, refusal string, err error) {
	req := p.Request
	plans, err := ratePlans(ctx, tx, req.HotelID)
	if err != nil {
		return nil, "", err
	}
	pricer := domain.NewPlanPricer(plans)
	plan, ok := pricer.Plan(req.Plan())
	switch {
	case !ok:
		return nil, "hotel " + req.HotelID + " has no rate plan " + req.Plan(), nil
	case plan.CannotSell(req.RoomTypeID, p.ChannelID) != "":
		return nil, plan.CannotSell(req.RoomTypeID, p.ChannelID), nil
	}
	nights, err := roomNightRates(ctx, tx, req.HotelID, req.RoomTypeID, req.CheckIn, req.CheckOut)
	if err != nil {
		return nil, "", err
	}
	priced, err := pricer.Nightly(plan.Code, nights[req.RoomTypeID])
	if err != nil {
		return nil, err.Error(), nil
	}
	unit, why := domain.StayPrice(priced)
	switch {
	case unit == nil:
		return nil, "rate plan " + plan.Code + ": " + why, nil
	case len(unit.Nights) != req.Nights():
		return nil, "rate plan " + plan.Code + ": not every night of the stay is on sale", nil
	}
	terms, policy := plan.Terms(domain.CancellationPolicy{})
	sale = &plannedSale{code: plan.Code, unit: *unit, terms: terms, policy: policy}
	if plan.Payment.Kind == domain.PayDeposit {
		var zone string
		if err := tx.QueryRow(ctx, `SELECT time_zone FROM hotels WHERE id = $1`, req.HotelID).Scan(&zone); err != nil {
			return nil, "", err
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return nil, "", err
		}
		due := plan.Payment.BalanceDueAt(req.CheckIn, loc)
		sale.balanceDueAt = &due
	}
	return sale, "", nil
}

// price is the sale's price of qty units.
func (s *plannedSale) price(qty int) domain.Price {
	out := domain.Price{Currency: s.unit.Currency, Nights: make([]domain.NightRate, len(s.unit.Nights))}
	for i, n := range s.unit.Nights {
		out.Nights[i] = domain.NightRate{Date: n.Date, Amount: n.Amount * int64(qty)}
		out.Total += n.Amount * int64(qty)
	}
	return out
}

// keep is what the booking row keeps of the sale: the plan's code, terms and policy as JSON, and
// when its balance is due (all nil for the default plan, whose booking keeps the hotel's policy
// and no terms, and is paid in full).
func (s *plannedSale) keep() (code *string, terms, policy []byte, balanceDueAt *time.Time, err error) {
	if s == nil {
		return nil, nil, nil, nil, nil
	}
	if terms, err = json.Marshal(s.terms); err != nil {
		return nil, nil, nil, nil, err
	}
	policy, err = json.Marshal(s.policy)
	return &s.code, terms, policy, s.balanceDueAt, err
}
