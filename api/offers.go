package api

import (
	"context"
	"fmt"
	"slices"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// offers answers each rate plan the party may sell of a room over a stay, priced from the
// nights' rates the search read with its availability (from the cache or the database): a plan
// a channel may not sell is left out; one that cannot sell this stay says why (a sale rule, no
// room left, a night without its price). The offers, their prices and nights are carved from
// slabs, valid until they are released.
func offers(m hotelMeta, p party, room db.RoomTypeAvailability, stay domain.Stay, today domain.Date,
	slabs *offerSlabs) []domain.Offer {
	nights := alignedRates(room, stay)
	plans := len(m.plans.Plans())
	out := carve(&slabs.offers, plans, true)
	prices := carve(&slabs.prices, plans, false)
	slab := carve(&slabs.nights, plans*len(nights), true)
	// Where no rule names a plan, every plan's verdict is the same: judged once.
	var shared *domain.SaleVerdict
	if !slices.ContainsFunc(m.rules, func(r domain.SaleRule) bool { return r.RatePlan != "" }) {
		v := domain.EvaluateSale(m.rules, p.sale(m.hotel.ID, room.RoomTypeID, stay, today))
		shared = &v
	}
	for k, plan := range m.plans.Plans() {
		if plan.CannotSell(room.RoomTypeID, p.channel) != "" {
			continue
		}
		o := plan.OfferTerms(m.hotel.Policy)
		v := shared
		if v == nil {
			sale := p.sale(m.hotel.ID, room.RoomTypeID, stay, today)
			sale.RatePlan = plan.Code
			judged := domain.EvaluateSale(m.rules, sale)
			v = &judged
		}
		price := &prices[k]
		price.Nights = slab[k*len(nights) : k*len(nights) : (k+1)*len(nights)]
		why, err := m.plans.PriceStay(plan.Code, nights, price)
		switch {
		case err != nil:
			why = err.Error()
		case why == "":
			o.Price = price
		}
		if o.Price != nil && v.Discount != nil {
			*o.Price, _ = v.Discount.Apply(*o.Price, 1)
		}
		switch {
		case !v.Allowed:
			o.UnsellableBecause = v.Refusal.Why
		case room.Available < 1:
			o.UnsellableBecause = "no room is left for the whole stay"
		case o.Price == nil:
			o.UnsellableBecause = why
		default:
			o.Sellable = true
		}
		out = append(out, o)
	}
	return out
}

// alignedRates are the room's nightly rates, one per night of the stay, dated: a night the
// search found no row for has no rate.
func alignedRates(room db.RoomTypeAvailability, stay domain.Stay) []domain.NightRates {
	dates := stay.NightDates()
	out := make([]domain.NightRates, len(dates))
	for i, d := range dates {
		if i < len(room.NightRates) && room.NightRates[i].Date == d {
			out[i] = room.NightRates[i]
		} else {
			out[i] = domain.NightRates{Date: d}
		}
	}
	return out
}

// checkPlan refuses, before any workflow starts, a hold naming a plan that cannot sell it: an
// unknown plan (404), or one that does not sell the room type or is not sold through the
// party's channel (400). A plan the process's copy of the
// hotel's terms does not know yet is read as it stands.
func (s *Server) checkPlan(ctx context.Context, m hotelMeta, req domain.HoldRequest, p party) error {
	if req.Plan() == domain.DefaultRatePlan {
		return nil
	}
	plan, ok := m.plans.Plan(req.Plan())
	if !ok {
		var err error
		if plan, err = s.store.GetRatePlan(ctx, req.HotelID, req.Plan()); err != nil {
			return err
		}
	}
	switch {
	case m.supplier.Mode == db.ModeDirectConnect:
		return fmt.Errorf("%w: hotel %s is sold at its supplier's price: it has no rate plans but %s", domain.ErrInvalid,
			req.HotelID, domain.DefaultRatePlan)
	case plan.CannotSell(req.RoomTypeID, p.channel) != "":
		return fmt.Errorf("%w: %s", domain.ErrInvalid, plan.CannotSell(req.RoomTypeID, p.channel))
	}
	return nil
}
