package domain

import "fmt"

// An amendment may move a booking to another rate plan (Change.RatePlan):
// docs/rates-and-restrictions.md ("An amendment that changes the plan") is the contract.

// CannotSell says why plan p cannot sell roomType through channel (empty: direct) to a
// reservation, an offer or an amendment naming it (empty: it can): a room type it does not
// sell, or a channel it is not sold through (the default plan sells through every one).
func (p RatePlan) CannotSell(roomType, channel string) string {
	switch {
	case !p.Sells(roomType):
		return "rate plan " + p.Code + " does not sell room type " + roomType
	case !p.Default && !p.SoldThrough(channel):
		return "rate plan " + p.Code + " is not sold through channel " + channel
	}
	return ""
}

// PlanChangeLimit says why booking b cannot move to plan to at all, whatever its stay (empty: it
// may): a supplier's booking is sold at its supplier's price, a booking moves neither into
// nor out of a deposit plan (its deposit and balance date would have to move with it), nor
// between a plan paid at the hotel and one paid online.
func (b Booking) PlanChangeLimit(to RatePlan) string {
	switch {
	case b.SupplierID != "":
		return fmt.Sprintf("booking %s is sold at its supplier's price: it keeps its rate plan", b.ID)
	case b.paymentRule().Kind == PayDeposit:
		return fmt.Sprintf("booking %s is paid by a deposit under rate plan %s: it cannot move to another plan", b.ID, b.RatePlan)
	case to.Payment.Kind == PayDeposit:
		return fmt.Sprintf("rate plan %s is paid by a deposit: booking %s cannot move to it", to.Code, b.ID)
	case b.PaysAtHotel() != (to.Payment.Kind == PayAtHotel):
		// A card guarantees a pay-at-hotel booking, money a paid one: neither stands in for the other.
		return fmt.Sprintf("booking %s cannot move between a plan paid at the hotel and one paid online (rate plan %s)",
			b.ID, to.Code)
	}
	return ""
}
