package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// DefaultRatePlan is the code of every hotel's default plan: its price is the room type's rate
// and its policy the hotel's. A request that names no plan gets it (docs/rates-and-restrictions.md).
const DefaultRatePlan = "BAR"

// AnyChannel in a plan's channels lets every sales channel sell it.
const AnyChannel = "*"

// Board is what a plan includes besides the room.
type Board string

// The boards a plan may include.
const (
	BoardRoomOnly  Board = "room_only"
	BoardBreakfast Board = "breakfast"
	BoardHalf      Board = "half_board"
	BoardFull      Board = "full_board"
)

// PaymentRuleKind is when a plan's guest pays.
type PaymentRuleKind string

// The payment rules.
const (
	PayInFull  PaymentRuleKind = "full"     // the whole price at booking
	PayDeposit PaymentRuleKind = "deposit"  // DepositPercent at booking, the rest BalanceDueDays before arrival
	PayAtHotel PaymentRuleKind = "at_hotel" // nothing at booking: a card kept as the guarantee
)

// PaymentRule is a plan's payment rule.
type PaymentRule struct {
	Kind           PaymentRuleKind `json:"kind"`
	DepositPercent int             `json:"depositPercent,omitempty"`
	BalanceDueDays *int            `json:"balanceDueDays,omitempty"`
}

// What a no-show keeps of what was paid.
const (
	NoShowKeepsAll        = "all" // today's behaviour, and the default
	NoShowKeepsFirstNight = "first_night"
	NoShowKeepsPercent    = "percent"
)

// RatePlanPolicy is a plan's own policy: the cancellation and early-departure fields a hotel has
// (NonRefundable among them: a cancel gives nothing back, whenever it comes), and what a no-show
// keeps.
type RatePlanPolicy struct {
	CancellationPolicy
	NoShow        string `json:"noShow,omitempty"`
	NoShowPercent int    `json:"noShowPercent,omitempty"`
}

// RatePlan is one way a hotel sells its rooms. The default plan holds no policy (nil: the
// hotel's) and no derivation; every other plan holds its policy.
type RatePlan struct {
	HotelID     string          `json:"hotelId"`
	Code        string          `json:"code"`
	Name        string          `json:"name"`
	Default     bool            `json:"default"`
	RoomTypes   []string        `json:"roomTypes"`
	Board       Board           `json:"board"`
	Includes    string          `json:"includes,omitempty"`
	Policy      *RatePlanPolicy `json:"policy"`
	Payment     PaymentRule     `json:"payment"`
	Channels    []string        `json:"channels"`
	DerivedFrom *Derivation     `json:"derivedFrom,omitempty"`
	UpdatedBy   string          `json:"updatedBy"`
	UpdatedAt   time.Time       `json:"updatedAt"`
}

// Sells reports whether the plan sells a room type (no room types named: every one).
func (p RatePlan) Sells(roomType string) bool {
	return len(p.RoomTypes) == 0 || slices.Contains(p.RoomTypes, roomType)
}

// Validate checks a plan's shape: what the store then checks is that its hotel, room types and
// parent exist and that its chain has no cycle.
func (p RatePlan) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: rate plan %s: "+format, append([]any{ErrInvalid, p.Code}, args...)...)
	}
	if err := ValidateID("hotelId", p.HotelID); err != nil {
		return err
	}
	if err := ValidateID("code", p.Code); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(p.Name); n == 0 || n > 200 || strings.ContainsFunc(p.Name, unicode.IsControl) {
		return bad("name must be 1-200 characters, none of them a control character")
	}
	if !slices.Contains([]Board{BoardRoomOnly, BoardBreakfast, BoardHalf, BoardFull}, p.Board) {
		return bad("board is room_only, breakfast, half_board or full_board")
	}
	if utf8.RuneCountInString(p.Includes) > 500 || strings.ContainsRune(p.Includes, 0) {
		return bad("includes is at most 500 characters, without NUL")
	}
	if err := validateDistinctIDs("roomTypes", p.RoomTypes, false); err != nil {
		return err
	}
	if err := validateDistinctIDs("channels", p.Channels, true); err != nil {
		return err
	}
	if err := p.Payment.validate(); err != nil {
		return bad("%v", err)
	}
	if p.Code == DefaultRatePlan || p.Default {
		return p.validateDefault(bad)
	}
	if p.Policy == nil {
		return bad("policy is required (only the default plan %s follows the hotel's)", DefaultRatePlan)
	}
	if err := p.Policy.validate(); err != nil {
		return err
	}
	if d := p.DerivedFrom; d != nil {
		if err := d.Validate(); err != nil {
			return err
		}
		if d.Parent == p.Code {
			return bad("a plan cannot be derived from itself")
		}
	}
	return nil
}

// validateDefault checks the default plan: the hotel's price, policy and channels, so only its
// name and what it includes are its own.
func (p RatePlan) validateDefault(bad func(string, ...any) error) error {
	switch {
	case p.Code != DefaultRatePlan || !p.Default:
		return bad("the default plan is %s", DefaultRatePlan)
	case p.Policy != nil:
		return bad("the default plan follows the hotel's cancellation policy: set it with PUT .../cancellation-policy")
	case p.DerivedFrom != nil:
		return bad("the default plan cannot be derived: its price is the room type's rate")
	case p.Payment.Kind != PayInFull:
		return bad("the default plan is paid in full at booking")
	case !slices.Equal(p.Channels, []string{AnyChannel}) || len(p.RoomTypes) > 0:
		return bad("the default plan sells every room type to every channel")
	}
	return nil
}

func (r PaymentRule) validate() error {
	switch r.Kind {
	case PayInFull, PayAtHotel:
		if r.DepositPercent != 0 || r.BalanceDueDays != nil {
			return fmt.Errorf("depositPercent and balanceDueDays go with a deposit")
		}
	case PayDeposit:
		if r.DepositPercent < 1 || r.DepositPercent > 99 {
			return fmt.Errorf("a deposit's depositPercent is 1-99")
		}
		if r.BalanceDueDays == nil || *r.BalanceDueDays < 0 || *r.BalanceDueDays > 365 {
			return fmt.Errorf("a deposit's balanceDueDays (days before arrival) is 0-365")
		}
	default:
		return fmt.Errorf("payment kind is full, deposit or at_hotel")
	}
	return nil
}

func (p RatePlanPolicy) validate() error {
	if err := p.CancellationPolicy.Validate(); err != nil {
		return err
	}
	switch p.NoShow {
	case "", NoShowKeepsAll, NoShowKeepsFirstNight:
		if p.NoShowPercent != 0 {
			return fmt.Errorf("%w: noShowPercent goes with noShow percent", ErrInvalid)
		}
	case NoShowKeepsPercent:
		if p.NoShowPercent < 1 || p.NoShowPercent > 100 {
			return fmt.Errorf("%w: noShowPercent is 1-100", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: noShow is all, first_night or percent", ErrInvalid)
	}
	return nil
}

// validateDistinctIDs checks a list of ids without repeats (star: AnyChannel alone is allowed).
func validateDistinctIDs(field string, ids []string, star bool) error {
	if star && slices.Contains(ids, AnyChannel) && len(ids) > 1 {
		return fmt.Errorf("%w: %s: %q stands alone", ErrInvalid, field, AnyChannel)
	}
	for i, id := range ids {
		if star && id == AnyChannel {
			continue
		}
		if err := ValidateID(field, id); err != nil {
			return err
		}
		if slices.Contains(ids[:i], id) {
			return fmt.Errorf("%w: %s names %s twice", ErrInvalid, field, id)
		}
	}
	return nil
}
