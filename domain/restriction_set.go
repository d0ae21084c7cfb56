package domain

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// MaxRestrictionNights bounds the dates of one bulk restriction item and of a calendar read.
const MaxRestrictionNights = 367

// Weekdays are the names a restriction set's weekdays take, Sunday first (time.Weekday's order).
var Weekdays = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// RestrictionSet is one item of a bulk restriction write, as a channel manager sends it
// (OTA_HotelAvailNotif, AlpineBits): for a room type (none: the whole hotel) and a plan (none:
// every plan), on the dates [From, To) (only the Weekdays named, when some are), the values of the
// restrictions given. A field left out leaves its restriction as it is; a field given replaces it
// on those dates; false, or a field named in Clear, removes it. The sets write rules of every plan's
// hotel-wide kinds only: no channel or agent.
type RestrictionSet struct {
	RoomTypeID string   `json:"roomTypeId,omitempty"`
	RatePlan   string   `json:"ratePlan,omitempty"`
	From       Date     `json:"from"`
	To         Date     `json:"to"`
	Weekdays   []string `json:"weekdays,omitempty"`
	// closed is a stop-sell (reason "other"); each of the three is a dated restriction of its own
	Closed            *bool `json:"closed,omitempty"`
	ClosedToArrival   *bool `json:"closedToArrival,omitempty"`
	ClosedToDeparture *bool `json:"closedToDeparture,omitempty"`
	RestrictionBounds
	// Clear names the number fields to remove ("minStay", "maxAdvance", ...).
	Clear []string `json:"clear,omitempty"`
}

// RestrictionBounds are the bounds of a stay and of its advance, nil when none: the minimum and
// maximum stay through a night (stay_through), on arrival (length_of_stay), and how many days
// ahead an arrival is booked (arrival_advance). A set's are the values it writes, a day's those in
// force.
type RestrictionBounds struct {
	MinStay        *int `json:"minStay,omitempty"`
	MaxStay        *int `json:"maxStay,omitempty"`
	MinStayArrival *int `json:"minStayArrival,omitempty"`
	MaxStayArrival *int `json:"maxStayArrival,omitempty"`
	MinAdvance     *int `json:"minAdvance,omitempty"`
	MaxAdvance     *int `json:"maxAdvance,omitempty"`
}

// restrictionFields maps each number field to the kind it is part of.
var restrictionFields = map[string]RuleKind{"minStay": RuleStayThrough, "maxStay": RuleStayThrough,
	"minStayArrival": RuleLengthOfStay, "maxStayArrival": RuleLengthOfStay,
	"minAdvance": RuleArrivalAdvance, "maxAdvance": RuleArrivalAdvance}

// Validate checks a set's shape; the store checks that its room type and plan are the hotel's.
func (s RestrictionSet) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: restrictions %s to %s: "+format, append([]any{ErrInvalid, s.From, s.To}, args...)...)
	}
	for _, f := range []struct{ name, v string }{{"roomTypeId", s.RoomTypeID}, {"ratePlan", s.RatePlan}} {
		if f.v != "" {
			if err := ValidateID(f.name, f.v); err != nil {
				return err
			}
		}
	}
	switch {
	case s.From.IsZero() || s.To.IsZero() || !s.To.After(s.From):
		return bad("from and to are required, to after from (the dates [from, to))")
	case s.From.DaysUntil(s.To) > MaxRestrictionNights:
		return bad("at most %d dates", MaxRestrictionNights)
	case len(s.Kinds()) == 0:
		return bad("give at least one restriction (or clear one)")
	}
	for _, w := range s.Weekdays {
		if !slices.Contains(Weekdays, w) {
			return bad("weekdays are %v", Weekdays)
		}
	}
	for _, f := range s.Clear {
		if _, ok := restrictionFields[f]; !ok {
			return bad("clear names the fields %s", strings.Join(slices.Sorted(maps.Keys(restrictionFields)), ", "))
		}
		if s.number(f) != nil {
			return bad("%s is both given and cleared", f)
		}
	}
	for _, f := range []string{"minStay", "maxStay", "minStayArrival", "maxStayArrival"} {
		if v := s.number(f); v != nil && (*v < 1 || *v > 365) {
			return bad("%s must be between 1 and 365 nights", f)
		}
	}
	for _, f := range []string{"minAdvance", "maxAdvance"} {
		if v := s.number(f); v != nil && (*v < 0 || *v > 3650) {
			return bad("%s must be between 0 and 3650 days", f)
		}
	}
	return nil
}

func (s RestrictionSet) number(field string) *int {
	return map[string]*int{"minStay": s.MinStay, "maxStay": s.MaxStay, "minStayArrival": s.MinStayArrival,
		"maxStayArrival": s.MaxStayArrival, "minAdvance": s.MinAdvance, "maxAdvance": s.MaxAdvance}[field]
}

// Kinds are the kinds of rule the set changes, in RuleKinds' order.
func (s RestrictionSet) Kinds() []RuleKind {
	touched := map[RuleKind]bool{RuleStopSell: s.Closed != nil, RuleClosedToArrival: s.ClosedToArrival != nil,
		RuleClosedToDeparture: s.ClosedToDeparture != nil}
	for f, k := range restrictionFields {
		if s.number(f) != nil || slices.Contains(s.Clear, f) {
			touched[k] = true
		}
	}
	var out []RuleKind
	for _, k := range RuleKinds {
		if touched[k] {
			out = append(out, k)
		}
	}
	return out
}

// OnDate reports whether the set applies to a date of its range (its weekdays).
func (s RestrictionSet) OnDate(d Date) bool {
	return len(s.Weekdays) == 0 || slices.Contains(s.Weekdays, Weekdays[d.Time().Weekday()])
}

// Scope is a rule of kind with the set's hotel, room type and plan, written by setBy: what Apply
// fills in.
func (s RestrictionSet) Scope(kind RuleKind, hotelID, setBy string) SaleRule {
	return SaleRule{Kind: kind, HotelID: hotelID, RoomTypeID: s.RoomTypeID, RatePlan: s.RatePlan, SetBy: setBy}
}

// Apply is the rule of kind on a date the set applies to, given the rule there before (nil: none)
// and scope (Scope): nil when the date is left without one. A field left out keeps the old
// value (of a kind with two bounds, the other bound stays); an old rule's other fields (a
// stop-sell's reason, a length of stay's discount) stay with it. Dates are the caller's.
func (s RestrictionSet) Apply(kind RuleKind, old *SaleRule, scope SaleRule) (*SaleRule, error) {
	r := scope
	if old != nil {
		r = *old
		r.ID, r.SetBy, r.Note = 0, scope.SetBy, scope.Note
	}
	pick := func(given *int, field string, was *int) *int {
		switch {
		case given != nil:
			return given
		case slices.Contains(s.Clear, field):
			return nil
		}
		return was
	}
	closed := func(given *bool) (*SaleRule, error) {
		if !*given {
			return nil, nil
		}
		if kind == RuleStopSell && r.Reason == "" {
			r.Reason = "other"
		}
		return &r, nil
	}
	var lo, hi *int
	switch kind {
	case RuleStopSell:
		return closed(s.Closed)
	case RuleClosedToArrival:
		return closed(s.ClosedToArrival)
	case RuleClosedToDeparture:
		return closed(s.ClosedToDeparture)
	case RuleStayThrough:
		lo, hi = pick(s.MinStay, "minStay", r.MinLOS), pick(s.MaxStay, "maxStay", r.MaxLOS)
	case RuleLengthOfStay:
		lo, hi = pick(s.MinStayArrival, "minStayArrival", r.MinLOS), pick(s.MaxStayArrival, "maxStayArrival", r.MaxLOS)
	case RuleArrivalAdvance:
		lo, hi = pick(s.MinAdvance, "minAdvance", r.MinAdvance), pick(s.MaxAdvance, "maxAdvance", r.MaxAdvance)
		if (lo == nil || *lo == 0) && (hi == nil || *hi == 3650) {
			return nil, nil // no bound left
		}
		r.MinAdvance, r.MaxAdvance = cmpOr(lo, 0), cmpOr(hi, 3650)
		if *r.MaxAdvance < *r.MinAdvance {
			return nil, fmt.Errorf("%w: maxAdvance %d is below minAdvance %d", ErrInvalid, *r.MaxAdvance, *r.MinAdvance)
		}
		return &r, nil
	default:
		return nil, fmt.Errorf("%w: a restriction set writes no %s rule", ErrInvalid, kind)
	}
	// a stay's bounds: a minimum of 1 is none
	if (lo == nil || *lo == 1) && hi == nil && r.DiscountFrom == nil {
		return nil, nil
	}
	r.MinLOS, r.MaxLOS = cmpOr(lo, 1), hi
	if hi != nil && *hi < *r.MinLOS {
		return nil, fmt.Errorf("%w: a maximum stay of %d is below the minimum of %d", ErrInvalid, *hi, *r.MinLOS)
	}
	return &r, nil
}

// cmpOr is a copy of v, or of def when v is nil.
func cmpOr(v *int, def int) *int {
	if v != nil {
		def = *v
	}
	return &def
}

// SameValue reports whether two rules (nil: none) say the same, whatever their ids and dates.
func SameValue(a, b *SaleRule) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.ID, y.ID, x.From, y.From, x.To, y.To = 0, 0, Date{}, Date{}, Date{}, Date{}
	return reflect.DeepEqual(x, y)
}
