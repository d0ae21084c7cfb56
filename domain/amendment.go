package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// StayChange is what an amendment of a stay asks for: the room type, dates and quantity the
// booking should have afterwards. A field left out keeps the booking's.
type StayChange struct {
	RoomTypeID string `json:"roomTypeId,omitempty"`
	CheckIn    Date   `json:"checkIn,omitzero"`
	CheckOut   Date   `json:"checkOut,omitzero"`
	Quantity   int    `json:"quantity,omitempty"`
}

// Fingerprint identifies the change asked for, so an idempotency key reused for another change
// can be told from a retry.
func (c StayChange) Fingerprint() string {
	canon := strings.Join([]string{c.RoomTypeID, c.CheckIn.String(), c.CheckOut.String(), strconv.Itoa(c.Quantity)}, "\x1f")
	sum := sha256.Sum256([]byte(canon))
	return hex.EncodeToString(sum[:])
}

// Units is what a booking holds: a quantity of one room type for a stay.
type Units struct {
	RoomTypeID string `json:"roomTypeId"`
	Stay
	Quantity int `json:"quantity"`
}

// UnitsOf is what b holds.
func UnitsOf(b Booking) Units {
	return Units{RoomTypeID: b.RoomTypeID, Stay: b.Stay, Quantity: b.Quantity}
}

// Apply is what a booking holding u would hold after the change c.
func (c StayChange) Apply(u Units) Units {
	if c.RoomTypeID != "" {
		u.RoomTypeID = c.RoomTypeID
	}
	if !c.CheckIn.IsZero() {
		u.CheckIn = c.CheckIn
	}
	if !c.CheckOut.IsZero() {
		u.CheckOut = c.CheckOut
	}
	if c.Quantity != 0 {
		u.Quantity = c.Quantity
	}
	return u
}

// Validate checks the change's shape against the limits: something is asked, and the stay it
// leads to from u is one a new booking could have.
func (c StayChange) Validate(u Units, l Limits) error {
	if c == (StayChange{}) {
		return fmt.Errorf("%w: an amendment names at least one of roomTypeId, checkIn, checkOut, quantity", ErrInvalid)
	}
	if c.RoomTypeID != "" {
		if err := ValidateID("roomTypeId", c.RoomTypeID); err != nil {
			return err
		}
	}
	to := c.Apply(u)
	if to == u {
		return fmt.Errorf("%w: the amendment changes nothing", ErrInvalid)
	}
	if to.Quantity < 1 || to.Quantity > l.MaxQuantity {
		return fmt.Errorf("%w: quantity must be between 1 and %d", ErrInvalid, l.MaxQuantity)
	}
	return to.Stay.Validate(l.MaxNights)
}

// AmendmentStatus is where an amendment stands.
type AmendmentStatus string

// Amendment outcomes: applied (the booking holds the new units), waiting for its balance (the
// new units are held beside the old ones until it is paid or DueBy passes), or lapsed (the
// balance was not paid, or the booking ended first: it holds what it held before).
const (
	AmendmentApplied    AmendmentStatus = "APPLIED"
	AmendmentBalanceDue AmendmentStatus = "BALANCE_DUE"
	AmendmentLapsed     AmendmentStatus = "LAPSED"
	// AmendmentRefused: the new units could not be sold (Reason says which night or rule);
	// nothing changed. A quote is never stored; its status is AmendmentQuoted.
	AmendmentRefused AmendmentStatus = "REFUSED"
	AmendmentQuoted  AmendmentStatus = "QUOTE"
)

// Amendment is the record of one change of what a booking holds.
type Amendment struct {
	ID        int64      `json:"id"`
	BookingID string     `json:"bookingId"`
	Requested StayChange `json:"requested"`
	// Before and After are the units and price before the change and after it.
	Before Units `json:"before"`
	After  Units `json:"after"`
	// PriceBefore and PriceAfter are the booking's price snapshot before and after.
	PriceBefore Price `json:"priceBefore"`
	PriceAfter  Price `json:"priceAfter"`
	// Difference is PriceAfter's total less PriceBefore's (minor units of Currency): a balance
	// due when positive on a paid booking, given back by the cancellation policy when negative.
	Difference int64  `json:"difference"`
	Currency   string `json:"currency"`
	// Discount is what a length-of-stay rule took off the rooms the amendment adds.
	Discount int64 `json:"discount,omitempty"`
	// Refund is what is given back of a paid booking's negative difference, by its policy.
	Refund int64           `json:"refund"`
	Status AmendmentStatus `json:"status"`
	Reason string          `json:"reason,omitempty"`
	// DueBy is when an unpaid balance lapses; BalancePaymentID the payment that paid it.
	DueBy            time.Time `json:"dueBy,omitzero"`
	BalancePaymentID string    `json:"balancePaymentId,omitempty"`
	Actor            string    `json:"actor"`
	CreatedAt        time.Time `json:"createdAt"`
	DecidedAt        time.Time `json:"decidedAt,omitzero"`
	Fingerprint      string    `json:"-"`
	IdempotencyKey   string    `json:"-"`
}

// Balance is what the amendment waits for: its difference while its balance is due, else 0.
func (a Amendment) Balance() int64 {
	if a.Status != AmendmentBalanceDue {
		return 0
	}
	return a.Difference
}
