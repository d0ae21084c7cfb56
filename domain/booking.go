package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// BookingIDPrefix starts every booking id, which is also the booking workflow's id.
const BookingIDPrefix = "booking-"

// RefundRecoveryID is the id of the workflow that finishes the refund of a booking whose own
// workflow is gone (see the invariant checker).
func RefundRecoveryID(bookingID string) string { return "refund-recovery-" + bookingID }

// StaffRefundWorkflowID is the id of the workflow that gives staff refunds of a booking whose own
// workflow has closed.
func StaffRefundWorkflowID(bookingID string) string { return "staff-refund-" + bookingID }

var (
	// Hotel and room type ids travel in URLs, so they are kept to a URL-safe alphabet.
	idPattern  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	keyPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
)

// idEncoding writes booking ids in lowercase base32: URL-safe and easy to read aloud.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// BookingID returns the deterministic id of the booking that createdBy (the customer, or staff
// booking for them) creates for customerID with an idempotency key: a retried request finds the
// same booking, and so the same workflow. The id is a keyed hash (HMAC-SHA256 under the
// deployment's booking-id key, 128 bits kept) of the three, so it reveals none of them, and
// nobody without the key can compute, squat or enumerate another customer's ids.
func BookingID(idKey []byte, customerID, createdBy, idempotencyKey string) string {
	mac := hmac.New(sha256.New, idKey)
	for _, part := range []string{customerID, createdBy, idempotencyKey} {
		mac.Write([]byte(strconv.Itoa(len(part)) + ":" + part)) // length-prefixed: no two splits collide
	}
	return BookingIDPrefix + idEncoding.EncodeToString(mac.Sum(nil)[:16])
}

// ValidateID checks an id of a hotel or room type.
func ValidateID(field, v string) error {
	if !idPattern.MatchString(v) {
		return fmt.Errorf("%w: %s must be 1-64 characters of A-Z a-z 0-9 . _ -", ErrInvalid, field)
	}
	return nil
}

// ValidateIdempotencyKey checks an Idempotency-Key header value.
func ValidateIdempotencyKey(v string) error {
	if v == "" {
		return fmt.Errorf("%w: the Idempotency-Key header is required", ErrInvalid)
	}
	if !keyPattern.MatchString(v) {
		return fmt.Errorf("%w: Idempotency-Key must be 1-128 characters of A-Z a-z 0-9 . _ : -", ErrInvalid)
	}
	return nil
}

// Limits bound what one booking may ask for.
type Limits struct {
	MaxNights       int // longest stay
	MaxQuantity     int // most rooms in one booking
	SaleHorizonDays int // how many days ahead check-in may be
}

// DefaultLimits are the limits used when the configuration sets none.
var DefaultLimits = Limits{MaxNights: 30, MaxQuantity: 20, SaleHorizonDays: 365}

// HoldRequest is what a checkout asks for: a quantity of one room type for a stay.
type HoldRequest struct {
	CustomerID string `json:"customerId"`
	HotelID    string `json:"hotelId"`
	RoomTypeID string `json:"roomTypeId"`
	// VenueID is set for a venue order; its lines are in Price.Lines.
	VenueID string `json:"venueId,omitempty"`
	Stay
	Quantity int `json:"quantity"`
	// RatePlan is the plan sold (empty: the hotel's default plan, DefaultRatePlan).
	RatePlan string `json:"ratePlan,omitempty"`
	// GroupCode books a group block's rooms at its rate (docs/groups-and-blocks.md).
	GroupCode string `json:"groupCode,omitempty"`
}

// Plan is the plan the request names, the default plan when it names none.
func (r HoldRequest) Plan() string {
	if r.RatePlan == "" {
		return DefaultRatePlan
	}
	return r.RatePlan
}

// Validate checks the request's shape against the limits; the calendar window needs the
// hotel's local date and is checked with Stay.ValidateWindow.
func (r HoldRequest) Validate(l Limits) error {
	if err := ValidateSubject("customerId", r.CustomerID); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"hotelId", r.HotelID}, {"roomTypeId", r.RoomTypeID}, {"ratePlan", r.Plan()}} {
		if err := ValidateID(f.name, f.v); err != nil {
			return err
		}
	}
	if r.GroupCode != "" {
		if err := ValidateGroupCode(r.GroupCode); err != nil {
			return err
		}
	}
	if r.Quantity < 1 || r.Quantity > l.MaxQuantity {
		return fmt.Errorf("%w: quantity must be between 1 and %d", ErrInvalid, l.MaxQuantity)
	}
	return r.Stay.Validate(l.MaxNights)
}

// Fingerprint identifies the request's content, so an idempotency key reused with a different
// body can be told from a plain retry.
func (r HoldRequest) Fingerprint() string {
	parts := []string{r.CustomerID, r.HotelID, r.RoomTypeID, r.CheckIn.String(), r.CheckOut.String(), strconv.Itoa(r.Quantity)}
	if r.Plan() != DefaultRatePlan { // the default plan's requests keep the fingerprints they always had
		parts = append(parts, r.RatePlan)
	}
	if r.GroupCode != "" { // only a group's requests carry it
		parts = append(parts, "group:"+strings.ToLower(r.GroupCode))
	}
	canon := strings.Join(parts, "\x1f")
	sum := sha256.Sum256([]byte(canon))
	return hex.EncodeToString(sum[:])
}

// Booking is a booking as stored: who took how many units of which room type for which stay,
// and where it stands.
type Booking struct {
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	// CreatedBy is who created the booking: the customer, or the staff member who booked for
	// them. Staff see it; customers do not.
	CreatedBy  string `json:"createdBy,omitempty"`
	HotelID    string `json:"hotelId"`
	RoomTypeID string `json:"roomTypeId"`
	// VenueID is set for a venue order; its lines are in Price.Lines.
	VenueID string `json:"venueId,omitempty"`
	Stay
	Quantity  int       `json:"quantity"`
	Status    Status    `json:"status"`
	Price     Price     `json:"price"`
	PaymentID string    `json:"paymentId,omitempty"`
	Paid      int64     `json:"paid"`      // minor units received for this booking
	RefundDue int64     `json:"refundDue"` // minor units to give back (REFUNDING, REFUNDED)
	ExpiresAt time.Time `json:"expiresAt"`
	// CancellationPolicy and TimeZone are the hotel's, as they were when the booking was held: a
	// cancellation is judged by them, on the hotel's clock.
	CancellationPolicy CancellationPolicy `json:"cancellationPolicy"`
	// RatePlan is the plan the booking was sold under, PlanTerms the plan's terms it keeps (nil
	// for the default plan's bookings: the hotel's terms, paid in full).
	RatePlan  string     `json:"ratePlan,omitempty"`
	PlanTerms *PlanTerms `json:"planTerms,omitempty"`
	TimeZone  string     `json:"timeZone,omitempty"`
	// BlockID and GroupCode: the group block it was picked up from (empty: none).
	BlockID   string `json:"blockId,omitempty"`
	GroupCode string `json:"groupCode,omitempty"`
	// Abandoned: the reservation did not complete within the time the API waits, and nothing
	// is held for it.
	Abandoned bool `json:"abandoned,omitempty"`
	// ChannelID and AgentID: the channel and agent it was sold through (empty: a direct sale).
	ChannelID string `json:"channelId,omitempty"`
	AgentID   string `json:"agentId,omitempty"`
	// Discount is what a length-of-stay rule took off the price's total (minor units).
	Discount int64 `json:"discount,omitempty"`
	// Refusal says which sale rule refused a REJECTED booking (empty when stock did).
	Refusal string `json:"refusal,omitempty"`
	// SupplierID is the supplier that confirms the stay, SupplierRef its confirmation.
	SupplierID  string `json:"supplierId,omitempty"`
	SupplierRef string `json:"supplierRef,omitempty"`
	// BalanceDue is what an amendment waiting for its balance asks for (minor units), until
	// BalanceDueBy; 0 when none waits.
	BalanceDue   int64     `json:"balanceDue,omitempty"`
	BalanceDueBy time.Time `json:"balanceDueBy,omitzero"`
	// BalanceDueAt, for a booking sold under a deposit plan, is when the rest of its price is
	// due (PlanBalance); zero when it pays in full. Deposit is what confirms it while on hold
	// (DepositDue), shown to clients.
	BalanceDueAt time.Time `json:"planBalanceDueAt,omitzero"`
	Deposit      int64     `json:"depositDue,omitempty"`
	// PlanOwed is what a booking confirmed by its deposit still owes of its price, by
	// BalanceDueAt: its price less what its payments brought, as the database read it (nil for
	// a booking without a balance date, and in results recorded before it was read).
	PlanOwed *int64 `json:"planBalance,omitempty"`
	// Guaranteed: a pay-at-hotel booking confirmed by the card its guest left (CardGuarantee):
	// its price is paid at the hotel, and a no-show or a late cancel is charged to the card.
	Guaranteed bool `json:"guaranteed,omitempty"`
	// CheckedOutAt is when a checked-in hotel guest was checked out (by CheckedOutBy, staff
	// only); zero while they stay.
	CheckedOutAt time.Time `json:"checkedOutAt,omitzero"`
	CheckedOutBy string    `json:"checkedOutBy,omitempty"`
	// Fee is the fee its card was asked for, once a no-show or a late cancel asked one.
	Fee         *GuaranteeFee `json:"guaranteeFee,omitempty"`
	CreatedAt   time.Time     `json:"createdAt"`
	UpdatedAt   time.Time     `json:"updatedAt"`
	Fingerprint string        `json:"-"`
}

// HotelNoShowAt is a hotel's check-in cut-off: a confirmed guest not checked in by noon of the
// day after their check-in date, at the hotel, is a no-show.
func HotelNoShowAt(checkIn Date, loc *time.Location) time.Time {
	return checkIn.AddDays(1).At(12, loc).UTC()
}

// OrderStarts is when a venue order's first line starts (zero before its lines are priced).
func (b Booking) OrderStarts() time.Time {
	var first time.Time
	for i, l := range b.Price.Lines {
		if i == 0 || l.Start.Before(first) {
			first = l.Start
		}
	}
	return first
}

// OrderEnds is when a venue order's last line ends (zero before its lines are priced).
func (b Booking) OrderEnds() time.Time {
	var last time.Time
	for _, l := range b.Price.Lines {
		if l.End.After(last) {
			last = l.End
		}
	}
	return last
}

// FreeCancelEnded reports whether a confirmed venue order is past its free cancellation window
// at instant now: its customer may no longer cancel it (staff may still refund it).
func (b Booking) FreeCancelEnded(now time.Time) bool {
	start := b.OrderStarts()
	window := time.Duration(b.CancellationPolicy.FreeUntilHours) * time.Hour
	return b.VenueID != "" && b.Status == StatusConfirmed && !start.IsZero() && !now.Before(start.Add(-window))
}

// PolicyRefund is what b's cancellation policy gives back of amount (minor units of currency)
// cancelled at instant now, judged on when b starts: a venue order's first line's start, or a
// stay's check-in, midnight of its check-in date at the hotel (Booking.CheckIn of an order is
// only its first line's UTC date, whose midnight may be hours before the order starts).
func (b Booking) PolicyRefund(amount int64, currency string, now time.Time) (int64, error) {
	if b.VenueID != "" {
		return b.CancellationPolicy.RefundBefore(amount, currency, b.OrderStarts(), now), nil
	}
	loc, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		return 0, fmt.Errorf("booking %s: time zone %q: %w", b.ID, b.TimeZone, err)
	}
	return b.CancellationPolicy.Refund(amount, currency, b.CheckIn, loc, now), nil
}

// FreeAmendEnded reports whether a confirmed stay is past its free cancellation at instant now:
// its customer may no longer amend it (staff may).
func (b Booking) FreeAmendEnded(now time.Time) bool {
	loc, err := time.LoadLocation(b.TimeZone)
	return b.VenueID == "" && b.Status.Used() && (err != nil || !now.Before(b.CheckIn.At(-b.CancellationPolicy.FreeUntilHours, loc)))
}

// TodayAtHotel is the date at the booking's hotel at instant now.
func (b Booking) TodayAtHotel(now time.Time) (Date, error) {
	loc, err := time.LoadLocation(b.TimeZone)
	if err != nil {
		return Date{}, fmt.Errorf("booking %s: time zone %q: %w", b.ID, b.TimeZone, err)
	}
	return DateOf(now, loc), nil
}

// StayBegun reports whether the stay has begun at instant now: it is the check-in date, or
// later, at the hotel.
func (b Booking) StayBegun(now time.Time) bool {
	today, err := b.TodayAtHotel(now)
	return err == nil && !today.Before(b.CheckIn)
}
