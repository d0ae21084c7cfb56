package domain

// NoShowKeeps returns what a no-show keeps of a booking's price by the plan terms it was sold
// under (nil, the default plan's, and terms from before noShow existed: everything).
//   - first_night: the price of the stay's first night as the booking holds it (each night's
//     amount is for all its rooms; a total set by hand apart from its nights scales them alike,
//     as an early departure's refund does), rounded down;
//   - percent: NoShowPercent of the total, rounded down to the minor unit: the odd cent is the
//     guest's.
func (t *PlanTerms) NoShowKeeps(price Price) int64 {
	if t == nil {
		return price.Total
	}
	switch t.NoShow {
	case NoShowKeepsPercent:
		return mulDiv(price.Total, int64(t.NoShowPercent), 100)
	case NoShowKeepsFirstNight:
		var all int64
		var first *NightRate
		for i, n := range price.Nights {
			all += n.Amount
			if first == nil || n.Date.Before(first.Date) {
				first = &price.Nights[i]
			}
		}
		switch {
		case first == nil: // no nights to keep one of: all is kept
			return price.Total
		case all > 0 && all != price.Total:
			return mulDiv(first.Amount, price.Total, all)
		}
		return first.Amount
	}
	return price.Total
}

// NoShowRefund is what a no-show gives back of kept, what the booking keeps of its payments:
// kept less what the terms keep of the price, never below 0 and never more than kept.
func (t *PlanTerms) NoShowRefund(price Price, kept int64) int64 {
	return min(max(kept-t.NoShowKeeps(price), 0), max(kept, 0))
}
