package domain

// RestrictionDay is the restrictions in force on one date for direct sales of a room type under a
// plan: the values a console's grid and a channel manager's export show. Bounds left out are none.
type RestrictionDay struct {
	Date              Date `json:"date"`
	Closed            bool `json:"closed"`
	ClosedToArrival   bool `json:"closedToArrival"`
	ClosedToDeparture bool `json:"closedToDeparture"`
	RestrictionBounds
}

// RestrictionCalendar is each date of [from, to) as the hotel's rules restrict a direct sale of
// roomTypeID under plan (empty: the rules of every plan only, what a plan no rule names gets). Every
// stop-sell, closed date, stay-through and arrival-advance rule covering a date applies, so the
// tightest bounds show; the length of stay on arrival is the one rule EvaluateSale chooses for a
// check-in that day. Channels' and agents' rules are not in it, nor the booking window and sale range.
func RestrictionCalendar(rules []SaleRule, hotelID, roomTypeID, plan string, from, to Date) []RestrictionDay {
	c := SaleContext{HotelID: hotelID, RoomTypeID: roomTypeID, RatePlan: plan}
	if plan == "" {
		c.RatePlan = "\x00" // no plan's own rule covers it
	}
	// The rules are sorted out once, not on every date (the ARI export asks for 200 room types
	// and plans of 365 dates): the dated ones of this room type and plan that meet [from, to),
	// and the lengths of stay on arrival, chosen per date by its check-in.
	var dated, arrival []SaleRule
	for _, r := range rules {
		if !r.global() || r.RatePlan != "" && (plan == "" || r.RatePlan != plan) {
			continue
		}
		switch r.Kind {
		case RuleLengthOfStay:
			arrival = append(arrival, r)
		case RuleStopSell, RuleClosedToArrival, RuleClosedToDeparture, RuleStayThrough, RuleArrivalAdvance:
			if r.covers(c) && r.From.Before(to) && from.Before(r.To) {
				dated = append(dated, r)
			}
		}
	}
	days := make([]RestrictionDay, 0, from.DaysUntil(to))
	for d := from; d.Before(to); d = d.AddDays(1) {
		day := RestrictionDay{Date: d}
		for _, r := range dated {
			if d.Before(r.From) || !d.Before(r.To) {
				continue
			}
			switch r.Kind {
			case RuleStopSell:
				day.Closed = true
			case RuleClosedToArrival:
				day.ClosedToArrival = true
			case RuleClosedToDeparture:
				day.ClosedToDeparture = true
			case RuleStayThrough:
				day.MinStay, day.MaxStay = tighter(day.MinStay, r.MinLOS, true), tighter(day.MaxStay, r.MaxLOS, false)
			case RuleArrivalAdvance:
				day.MinAdvance = tighter(day.MinAdvance, r.MinAdvance, true)
				day.MaxAdvance = tighter(day.MaxAdvance, r.MaxAdvance, false)
			}
		}
		if len(arrival) > 0 {
			c.Stay = Stay{CheckIn: d, CheckOut: d.AddDays(1)}
			if chosen := choose(coveringOf(arrival, c), RuleLengthOfStay, c); len(chosen) > 0 {
				day.MinStayArrival, day.MaxStayArrival = chosen[0].MinLOS, chosen[0].MaxLOS
			}
		}
		days = append(days, day)
	}
	return days
}

func coveringOf(rules []SaleRule, c SaleContext) []SaleRule {
	var out []SaleRule
	for _, r := range rules {
		if r.covers(c) {
			out = append(out, r)
		}
	}
	return out
}

// tighter is the higher of two minimums (low) or the lower of two maximums; nil is no bound.
func tighter(a, b *int, low bool) *int {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case (*b > *a) == low:
		return b
	}
	return a
}
