package domain

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Change is what an amendment asks for. Of a stay: the room type, dates, quantity and rate plan
// the booking should have afterwards, a field left out keeping the booking's. Of a venue order:
// every line it should have afterwards (Lines), each kept, moved, resized, added or left out.
type Change struct {
	RoomTypeID string      `json:"roomTypeId,omitempty"`
	CheckIn    Date        `json:"checkIn,omitzero"`
	CheckOut   Date        `json:"checkOut,omitzero"`
	Quantity   int         `json:"quantity,omitempty"`
	RatePlan   string      `json:"ratePlan,omitempty"`
	Lines      []OrderLine `json:"lines,omitempty"`
}

// Against is the change as asked of a booking holding u: naming the plan u has is naming none,
// so such a request is the one without it (its fingerprint too).
func (c Change) Against(u Units) Change {
	if c.RatePlan == u.RatePlan {
		c.RatePlan = ""
	}
	return c
}

// Fingerprint identifies the change asked for, so an idempotency key reused for another change
// can be told from a retry.
func (c Change) Fingerprint() string {
	parts := []string{c.RoomTypeID, c.CheckIn.String(), c.CheckOut.String(), strconv.Itoa(c.Quantity)}
	if c.RatePlan != "" { // a change naming no plan keeps the fingerprint it always had
		parts = append(parts, "plan="+c.RatePlan)
	}
	for _, l := range c.Lines {
		parts = append(parts, l.ResourceID, l.Start.UTC().Format(time.RFC3339Nano), l.End.UTC().Format(time.RFC3339Nano),
			strconv.Itoa(l.Quantity))
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x1f")))
	return hex.EncodeToString(sum[:])
}

// Units is what a booking holds: a quantity of one room type for a stay under a rate plan, or a
// venue order's lines. RatePlan is empty in the records of amendments made before amendments
// could change it.
type Units struct {
	RoomTypeID string      `json:"roomTypeId,omitempty"`
	CheckIn    Date        `json:"checkIn,omitzero"`
	CheckOut   Date        `json:"checkOut,omitzero"`
	Quantity   int         `json:"quantity,omitempty"`
	RatePlan   string      `json:"ratePlan,omitempty"`
	Lines      []OrderLine `json:"lines,omitempty"`
}

// Stay is the stay of a stay's units.
func (u Units) Stay() Stay { return Stay{CheckIn: u.CheckIn, CheckOut: u.CheckOut} }

// Equal reports whether u and o hold the same units.
func (u Units) Equal(o Units) bool {
	return u.RoomTypeID == o.RoomTypeID && u.CheckIn == o.CheckIn && u.CheckOut == o.CheckOut && u.Quantity == o.Quantity &&
		u.RatePlan == o.RatePlan && slices.EqualFunc(u.Lines, o.Lines, OrderLine.Equal)
}

// UnitsOf is what b holds.
func UnitsOf(b Booking) Units {
	if b.VenueID != "" {
		lines := make([]OrderLine, len(b.Price.Lines))
		for i, l := range b.Price.Lines {
			lines[i] = l.OrderLine
		}
		return Units{Lines: lines}
	}
	return Units{RoomTypeID: b.RoomTypeID, CheckIn: b.CheckIn, CheckOut: b.CheckOut, Quantity: b.Quantity,
		RatePlan: cmp.Or(b.RatePlan, DefaultRatePlan)}
}

// Apply is what a booking holding u would hold after the change c.
func (c Change) Apply(u Units) Units {
	if u.Lines != nil {
		if c.Lines != nil {
			u.Lines = c.Lines
		}
		return u
	}
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
	if c.RatePlan != "" {
		u.RatePlan = c.RatePlan
	}
	return u
}

// Validate checks the change's shape against the limits: a change of a stay names its fields, one
// of an order its lines, and what it leads to from u is what a new booking could have, and not
// what u already holds.
func (c Change) Validate(u Units, l Limits) error {
	stay := c.RoomTypeID != "" || !c.CheckIn.IsZero() || !c.CheckOut.IsZero() || c.Quantity != 0 || c.RatePlan != ""
	switch {
	case u.Lines != nil && (stay || c.Lines == nil):
		return fmt.Errorf("%w: an amendment of a venue order gives its lines (all of them, as they should be)", ErrInvalid)
	case u.Lines == nil && c.Lines != nil:
		return fmt.Errorf("%w: a stay is amended by roomTypeId, checkIn, checkOut, quantity or ratePlan, not lines", ErrInvalid)
	case u.Lines == nil && !stay:
		return fmt.Errorf("%w: an amendment names at least one of roomTypeId, checkIn, checkOut, quantity, ratePlan", ErrInvalid)
	}
	to := c.Apply(u)
	if to.Equal(u) {
		return fmt.Errorf("%w: the amendment changes nothing", ErrInvalid)
	}
	if u.Lines != nil {
		return validateLines(c.Lines, l)
	}
	for _, f := range [][2]string{{"roomTypeId", c.RoomTypeID}, {"ratePlan", c.RatePlan}} {
		if f[1] != "" {
			if err := ValidateID(f[0], f[1]); err != nil {
				return err
			}
		}
	}
	if to.Quantity < 1 || to.Quantity > l.MaxQuantity {
		return fmt.Errorf("%w: quantity must be between 1 and %d", ErrInvalid, l.MaxQuantity)
	}
	return to.Stay().Validate(l.MaxNights)
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
	// AmendmentSupplierPending: a supplier's booking waits for its supplier to confirm the new
	// stay (held new, under SupplierHoldRef); the booking is as it was until then.
	AmendmentSupplierPending AmendmentStatus = "SUPPLIER_PENDING"
)

// Amendment is the record of one change of what a booking holds.
type Amendment struct {
	ID        int64  `json:"id"`
	BookingID string `json:"bookingId"`
	Requested Change `json:"requested"`
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
	// Discount is what a length-of-stay rule took off the rooms the amendment adds (of one that
	// changes the plan, off the whole stay, priced afresh).
	Discount int64 `json:"discount,omitempty"`
	// PlanTerms and Policy, of an amendment that changes the plan (After.RatePlan), are the new
	// plan's terms and cancellation policy as they stood when it was asked: the booking takes them
	// when it is applied (the default plan's booking keeps no terms and takes the hotel's policy).
	PlanTerms *PlanTerms          `json:"planTerms,omitempty"`
	Policy    *CancellationPolicy `json:"policy,omitempty"`
	// Refund is what is given back of a paid booking's negative difference, by its policy.
	Refund int64           `json:"refund"`
	Status AmendmentStatus `json:"status"`
	Reason string          `json:"reason,omitempty"`
	// DueBy is when an unpaid balance lapses; BalancePaymentID the payment that paid it.
	DueBy            time.Time `json:"dueBy,omitzero"`
	BalancePaymentID string    `json:"balancePaymentId,omitempty"`
	// SupplierHoldRef and SupplierConfirmation: a supplier's booking's new hold, and its
	// confirmation.
	SupplierHoldRef      string `json:"supplierHoldRef,omitempty"`
	SupplierConfirmation string `json:"supplierConfirmation,omitempty"`
	// LeftHoldRef is the hold the booking left for the new one, once applied.
	LeftHoldRef    string    `json:"-"`
	Actor          string    `json:"actor"`
	CreatedAt      time.Time `json:"createdAt,omitzero"` // absent from a quote, which is never stored
	DecidedAt      time.Time `json:"decidedAt,omitzero"`
	Fingerprint    string    `json:"-"`
	IdempotencyKey string    `json:"-"`
}

// Balance is what the amendment waits for: its difference while its balance is due, else 0.
func (a Amendment) Balance() int64 {
	if a.Status != AmendmentBalanceDue {
		return 0
	}
	return a.Difference
}
