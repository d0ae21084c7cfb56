package api

import (
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// offers answers each rate plan the party may sell of a room over a stay, priced from the
// nights' rates the search read with its availability (from the cache or the database): a plan
// a channel may not sell is left out; one that cannot sell this stay says why (a sale rule, no
// room left, a night without its price).
func offers(m hotelMeta, p party, room db.RoomTypeAvailability, stay domain.Stay, today domain.Date) []domain.Offer {
	nights := alignedRates(room, stay)
	out := []domain.Offer{}
	for _, plan := range m.plans.Plans() {
		if !plan.Sells(room.RoomTypeID) || !plan.SoldThrough(p.channel) {
			continue
		}
		o := plan.OfferTerms(m.hotel.Policy)
		sale := p.sale(m.hotel.ID, room.RoomTypeID, stay, today)
		sale.RatePlan = plan.Code
		v := domain.EvaluateSale(m.rules, sale)
		priced, err := m.plans.Nightly(plan.Code, nights)
		var why string
		if err != nil {
			why = err.Error()
		} else {
			o.Price, why = domain.StayPrice(priced)
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
