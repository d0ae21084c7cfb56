package domain

import (
	"fmt"
	"time"
)

// WaitlistRequest is a customer joining the waitlist of a sold-out product: quantity rooms of a
// hotel's room type for a stay (under a rate plan), or quantity units of a venue's resource over
// a slot. Exactly one of HotelID and VenueID is set.
type WaitlistRequest struct {
	CustomerID string `json:"customerId"`
	HotelID    string `json:"hotelId,omitempty"`
	RoomTypeID string `json:"roomTypeId,omitempty"`
	Stay
	RatePlan   string    `json:"ratePlan,omitempty"`
	VenueID    string    `json:"venueId,omitempty"`
	ResourceID string    `json:"resourceId,omitempty"`
	Start      time.Time `json:"start,omitzero"`
	End        time.Time `json:"end,omitzero"`
	Quantity   int       `json:"quantity"`
}

// Hold is the stay the request waits for, as a hold would ask for it.
func (r WaitlistRequest) Hold() HoldRequest {
	return HoldRequest{CustomerID: r.CustomerID, HotelID: r.HotelID, RoomTypeID: r.RoomTypeID, Stay: r.Stay,
		Quantity: r.Quantity, RatePlan: r.RatePlan}
}

// Order is the slot the request waits for, as a one-line order would ask for it.
func (r WaitlistRequest) Order() OrderRequest {
	return OrderRequest{CustomerID: r.CustomerID, VenueID: r.VenueID,
		Lines: []OrderLine{{ResourceID: r.ResourceID, Start: r.Start, End: r.End, Quantity: r.Quantity}}}
}

// Validate checks the request's shape as a hold or an order of the same product would be.
func (r WaitlistRequest) Validate(l Limits) error {
	if err := ValidateSubject("customerId", r.CustomerID); err != nil {
		return err
	}
	return r.ValidateProduct(l)
}

// ValidateProduct checks the product alone (a staff list of its waitlist names no customer).
func (r WaitlistRequest) ValidateProduct(l Limits) error {
	r.CustomerID = "product" // the hold's and the order's checks ask for one
	switch {
	case (r.HotelID == "") == (r.VenueID == ""):
		return fmt.Errorf("%w: name either a hotel (hotelId, roomTypeId, checkIn, checkOut) or a venue (venueId, resourceId, start, end)", ErrInvalid)
	case r.HotelID != "":
		if r.ResourceID != "" || !r.Start.IsZero() || !r.End.IsZero() {
			return fmt.Errorf("%w: a hotel's waitlist takes roomTypeId, checkIn and checkOut, not resourceId, start or end", ErrInvalid)
		}
		return r.Hold().Validate(l)
	default:
		if r.RoomTypeID != "" || !r.CheckIn.IsZero() || !r.CheckOut.IsZero() || r.RatePlan != "" {
			return fmt.Errorf("%w: a venue's waitlist takes resourceId, start and end, not roomTypeId, checkIn, checkOut or ratePlan", ErrInvalid)
		}
		return r.Order().Validate(l)
	}
}

// The states of a waitlist entry.
const (
	WaitlistWaiting = "waiting" // in line
	WaitlistOffered = "offered" // a hold (its offer) keeps the units for it until it is paid or expires
	WaitlistClosed  = "closed"  // ClosedReason says why
)

// Why a waitlist entry closed.
const (
	WaitlistBooked          = "booked"           // its offer was paid
	WaitlistBookedElsewhere = "booked_elsewhere" // its customer booked the product another way
	WaitlistLeft            = "left"             // its customer left the waitlist
	WaitlistDeclined        = "declined"         // its offer was declined (cancelled)
	WaitlistOfferExpired    = "offer_expired"    // its offer was not paid in time
	WaitlistWindowClosed    = "window_closed"    // the product can no longer be booked
	WaitlistErased          = "erased"           // its customer's data was erased
)

// Waitlist fit rules: what an entry asking for more units than are free does to those behind it.
const (
	WaitlistFitSkip = "skip" // the next entry that fits is offered; the skipped one keeps its place
	WaitlistFitWait = "wait" // nothing is offered past it until it fits
)

// WaitlistEntry is one customer waiting for a product.
type WaitlistEntry struct {
	ID int64 `json:"id"`
	WaitlistRequest
	CreatedBy string `json:"createdBy"`
	ChannelID string `json:"channelId,omitempty"`
	AgentID   string `json:"agentId,omitempty"`
	Status    string `json:"status"`
	// Place is the entry's place in line among the product's waiting entries (1: next), while it
	// waits; zero otherwise.
	Place int `json:"place,omitempty"`
	// Offers is how many offers it had; OfferBookingID its last one, a HOLD until OfferExpiresAt
	// while Status is offered.
	Offers         int        `json:"offers"`
	OfferBookingID string     `json:"offerBookingId,omitempty"`
	OfferExpiresAt *time.Time `json:"offerExpiresAt,omitempty"`
	ClosedReason   string     `json:"closedReason,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	ClosedAt       *time.Time `json:"closedAt,omitempty"`
}

// WaitlistSettings are a site's waitlist rules.
type WaitlistSettings struct {
	// OfferSeconds is how long an offer is held for its customer to pay (default 3600), as a
	// venue's payment window is given.
	OfferSeconds int `json:"offerSeconds"`
	// Fit is WaitlistFitSkip (the default) or WaitlistFitWait.
	Fit string `json:"fit"`
}

// Validate checks the settings against what the database keeps.
func (s WaitlistSettings) Validate() error {
	if s.OfferSeconds < 1 || s.OfferSeconds > 604800 {
		return fmt.Errorf("%w: offerSeconds must be between 1 and 604800 (a week)", ErrInvalid)
	}
	if s.Fit != WaitlistFitSkip && s.Fit != WaitlistFitWait {
		return fmt.Errorf("%w: fit must be %q or %q", ErrInvalid, WaitlistFitSkip, WaitlistFitWait)
	}
	return nil
}
