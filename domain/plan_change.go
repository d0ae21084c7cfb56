package domain

import "fmt"

// An amendment may move a booking to another rate plan (Change.RatePlan):
// docs/rates-and-restrictions.md ("An amendment that changes the plan") is the contract.

// CannotSell says why plan p cannot sell roomType through channel (empty: direct) to a
// reservation or an amendment naming it (empty: it can): a room type it does not sell, a
// channel it is not sold through (the default plan sells through every one), or terms bookings
// cannot follow yet.
func (p RatePlan) CannotSell(roomType, channel string) string {
	switch {
	case !p.Sells(roomType):
		return "rate plan " + p.Code + " does not sell room type " + roomType
	case !p.Default && !p.SoldThrough(channel):
		return "rate plan " + p.Code + " is not sold through channel " + channel
	}
	return p.NotYetBookable()
}

// PlanChangeLimit says why booking b cannot move to plan to at all, whatever its stay (empty: it
// may): a supplier's booking is sold at its supplier's price, and a booking moves neither into
// nor out of a deposit plan (its deposit and balance date would have to move with it).
func (b Booking) PlanChangeLimit(to RatePlan) string {
	switch {
	case b.SupplierID != "":
		return fmt.Sprintf("booking %s is sold at its supplier's price: it keeps its rate plan", b.ID)
	case b.paymentRule().Kind == PayDeposit:
		return fmt.Sprintf("booking %s is paid by a deposit under rate plan %s: it cannot move to another plan", b.ID, b.RatePlan)
	case to.Payment.Kind == PayDeposit:
		return fmt.Sprintf("rate plan %s is paid by a deposit: booking %s cannot move to it", to.Code, b.ID)
	}
	return ""
}
