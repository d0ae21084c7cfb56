package domain

import "strings"

// Status is where a booking stands.
type Status string

// The booking states. Units are deducted when the hold is created, so HOLD, CONFIRMED and
// COMPLETED hold inventory and every other state does not.
const (
	StatusHold      Status = "HOLD"
	StatusConfirmed Status = "CONFIRMED"
	StatusExpired   Status = "EXPIRED"
	StatusCancelled Status = "CANCELLED"
	StatusRejected  Status = "REJECTED"
	// StatusRefunding: the nights are released and money is on its way back to the guest.
	StatusRefunding Status = "REFUNDING"
	// StatusRefunded: the guest's money (less any cancellation fee) was returned.
	StatusRefunded Status = "REFUNDED"
	// StatusCompleted: checked in by staff. The units stay taken (a guest is in the room).
	StatusCompleted Status = "COMPLETED"
	// StatusNoShow: confirmed, and nobody checked in by the deadline; the units go back, the
	// payment is kept.
	StatusNoShow Status = "NO_SHOW"
)

// transitions lists the allowed moves. REJECTED is a starting outcome (the reservation was
// refused), or a hold the supplier refused to confirm. A paid booking that is cancelled, or a
// payment that arrives for nights no longer held, goes through REFUNDING; EXPIRED -> CONFIRMED
// is a late payment that could take the same nights again.
var transitions = map[Status][]Status{
	StatusHold:      {StatusConfirmed, StatusExpired, StatusCancelled, StatusRejected, StatusRefunding}, // a desk deposit goes back
	StatusConfirmed: {StatusCancelled, StatusRefunding, StatusCompleted, StatusNoShow},
	StatusCompleted: {StatusCancelled, StatusRefunding},
	StatusExpired:   {StatusConfirmed, StatusRefunding},
	StatusCancelled: {StatusRefunding},
	StatusRejected:  {StatusRefunding},
	StatusRefunding: {StatusRefunded},
}

// HoldsInventory reports whether a booking in this status keeps its units reserved.
func (s Status) HoldsInventory() bool {
	return s == StatusHold || s == StatusConfirmed || s == StatusCompleted
}

// Used reports whether a booking in this status is confirmed for its guest: CONFIRMED, or
// checked in.
func (s Status) Used() bool { return s == StatusConfirmed || s == StatusCompleted }

// Sources returns the statuses from which a booking may move to s.
func Sources(s Status) []Status {
	var out []Status
	for from, tos := range transitions {
		for _, to := range tos {
			if to == s {
				out = append(out, from)
			}
		}
	}
	return out
}

// publicReasons are the only explanations customers are shown: fixed sentences per status, so
// no internal error, refund detail or operator's note ever reaches them. Staff see the
// workflow's own reason.
var publicReasons = map[Status]string{
	StatusExpired:   "the hold expired before the payment arrived",
	StatusCancelled: "the booking was cancelled",
	StatusRejected:  "the rooms asked for are not available on every night of the stay",
	StatusRefunding: "the booking was cancelled or could not be kept; the refund is on its way",
	StatusRefunded:  "the booking was cancelled or could not be kept, and the refund was made",
	StatusNoShow:    "nobody checked in by the deadline; the booking was kept as a no-show",
}

// supplierRefusalPrefix starts the refusal of a hold its supplier refused to confirm; what
// follows is the supplier's own words, which customers are not shown.
const supplierRefusalPrefix = "the supplier refused the booking"

// supplierRefusedReason is what a customer is told of a booking its supplier refused.
const supplierRefusedReason = "the hotel could not confirm the rooms asked for"

// SupplierRefusal is the refusal recorded for a hold its supplier refused, why being the
// supplier's reason.
func SupplierRefusal(why string) string {
	if strings.HasPrefix(why, supplierRefusalPrefix) {
		return why
	}
	return supplierRefusalPrefix + ": " + why
}

// RefusedBySupplier reports whether the booking is REJECTED because its supplier refused it.
func (b Booking) RefusedBySupplier() bool {
	return b.Status == StatusRejected && strings.HasPrefix(b.Refusal, supplierRefusalPrefix)
}

// PublicReason is what a customer is told about a booking in status s ("" when nothing needs
// explaining).
func (s Status) PublicReason() string { return publicReasons[s] }

// PublicReason is what a customer is told about booking b: its status's reason (a fixed one when
// its supplier refused it), in a venue's terms (slots and items, not rooms and nights) for a
// venue order.
func (b Booking) PublicReason() string {
	if b.RefusedBySupplier() {
		return supplierRefusedReason
	}
	if why, ok := venuePublicReasons[b.Status]; ok && b.VenueID != "" {
		return why
	}
	return b.Status.PublicReason()
}
