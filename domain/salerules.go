package domain

import (
	"cmp"
	"fmt"
	"slices"
)

// RuleKind is a kind of sale rule: something that decides whether a stay may be sold at all,
// before any stock is looked at.
type RuleKind string

// The kinds of sale rule.
const (
	RuleStopSell          RuleKind = "stop_sell"           // closes nights [From, To)
	RuleClosedToArrival   RuleKind = "closed_to_arrival"   // no check-in on the dates [From, To)
	RuleClosedToDeparture RuleKind = "closed_to_departure" // no check-out on the dates [From, To)
	RuleStayThrough       RuleKind = "stay_through"        // a stay with a night in [From, To): MinLOS..MaxLOS nights
	RuleArrivalAdvance    RuleKind = "arrival_advance"     // check-in on the dates [From, To): MinAdvance..MaxAdvance days ahead
	RuleSaleRange         RuleKind = "sale_range"          // sells only stays within [From, To], inclusive
	RuleBookingWindow     RuleKind = "booking_window"      // check-in MinAdvance..MaxAdvance days ahead
	RuleLengthOfStay      RuleKind = "length_of_stay"      // MinLOS..MaxLOS nights on arrival, with a discount
)

// RuleKinds lists every kind, in the order rules are evaluated.
var RuleKinds = []RuleKind{RuleStopSell, RuleClosedToArrival, RuleClosedToDeparture, RuleStayThrough, RuleArrivalAdvance,
	RuleSaleRange, RuleBookingWindow, RuleLengthOfStay}

// StopSellReasons are the reasons a stop-sell may give.
var StopSellReasons = []string{"maintenance", "full", "event", "seasonal", "other"}

// Defaults of the booking window for sales through a channel or agent, when no rule sets one.
const (
	DefaultMinAdvance = 1
	DefaultMaxAdvance = 365
)

// SaleRule is one rule as stored. It applies to a hotel, optionally narrowed to one room type, to
// one rate plan (a rule naming none applies to every plan) and to one channel or one agent (never
// both); empty fields cover everything.
type SaleRule struct {
	ID         int64    `json:"id"`
	Kind       RuleKind `json:"kind"`
	HotelID    string   `json:"hotelId"`
	RoomTypeID string   `json:"roomTypeId,omitempty"`
	RatePlan   string   `json:"ratePlan,omitempty"` // a plan code of the hotel
	ChannelID  string   `json:"channelId,omitempty"`
	AgentID    string   `json:"agentId,omitempty"`
	// From and To: the nights a stop-sell closes [From, To); a sale range's first and last
	// sellable nights (inclusive); the check-in dates a length-of-stay rule is effective for
	// [From, To), open ended when zero.
	From Date `json:"from,omitzero"`
	To   Date `json:"to,omitzero"`
	// A booking window's bounds, in days from today at the hotel to check-in.
	MinAdvance *int `json:"minAdvance,omitempty"`
	MaxAdvance *int `json:"maxAdvance,omitempty"`
	// A length-of-stay rule's bounds in nights (MaxLOS nil: no maximum) and its discount once
	// the stay has DiscountFrom nights: DiscountPercent off the total, or DiscountAmount (minor
	// units) off every night.
	MinLOS          *int   `json:"minLos,omitempty"`
	MaxLOS          *int   `json:"maxLos,omitempty"`
	DiscountFrom    *int   `json:"discountFrom,omitempty"`
	DiscountPercent *int   `json:"discountPercent,omitempty"`
	DiscountAmount  *int64 `json:"discountAmount,omitempty"`
	// OverridesGlobal: a channel's or agent's rule replaces the hotel's global rule of its kind
	// instead of applying on top of it.
	OverridesGlobal bool   `json:"overridesGlobal,omitempty"`
	Reason          string `json:"reason,omitempty"` // a stop-sell's
	Note            string `json:"note,omitempty"`
	SetBy           string `json:"setBy"`
}

// Validate checks a rule's shape for its kind. It does not check that the hotel, room type,
// channel or agent exist.
func (r SaleRule) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s rule: "+format, append([]any{ErrInvalid, r.Kind}, args...)...)
	}
	if err := ValidateID("hotelId", r.HotelID); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"roomTypeId", r.RoomTypeID}, {"ratePlan", r.RatePlan},
		{"channelId", r.ChannelID}, {"agentId", r.AgentID}} {
		if f.v != "" {
			if err := ValidateID(f.name, f.v); err != nil {
				return err
			}
		}
	}
	if r.ChannelID != "" && r.AgentID != "" {
		return bad("name a channel or an agent, not both (an agent's channel is known)")
	}
	if !r.From.IsZero() && !r.To.IsZero() && r.To.Before(r.From) {
		return bad("to must not be before from")
	}
	if r.OverridesGlobal && r.ChannelID == "" && r.AgentID == "" {
		return bad("only a channel's or an agent's rule can override the global one")
	}
	if Longer(r.Note, 500) {
		return bad("note is at most 500 characters")
	}
	nonNeg := func(name string, v *int) error {
		if v != nil && (*v < 0 || *v > 3650) {
			return bad("%s must be between 0 and 3650", name)
		}
		return nil
	}
	switch r.Kind {
	case RuleStopSell:
		switch {
		case r.From.IsZero() || r.To.IsZero() || !r.To.After(r.From):
			return bad("from and to are required, to after from (the nights [from, to) are closed)")
		case !slices.Contains(StopSellReasons, r.Reason):
			return bad("reason must be one of %v", StopSellReasons)
		case r.AgentID != "":
			return bad("a stop-sell closes a hotel, a room type or one channel, not one agent")
		}
	case RuleClosedToArrival, RuleClosedToDeparture:
		if r.From.IsZero() || r.To.IsZero() || !r.To.After(r.From) {
			return bad("from and to are required, to after from (the dates [from, to) are closed)")
		}
	case RuleStayThrough:
		switch {
		case r.From.IsZero() || r.To.IsZero() || !r.To.After(r.From):
			return bad("from and to are required, to after from (a stay with a night in [from, to) is bounded)")
		case r.MinLOS == nil || *r.MinLOS < 1 || *r.MinLOS > 365:
			return bad("minLos is required, between 1 and 365 (1: no minimum)")
		case r.MaxLOS != nil && (*r.MaxLOS < *r.MinLOS || *r.MaxLOS > 365):
			return bad("maxLos must be between minLos and 365")
		case r.DiscountFrom != nil || r.DiscountPercent != nil || r.DiscountAmount != nil:
			return bad("only a length-of-stay rule gives a discount")
		}
	case RuleSaleRange:
		if r.From.IsZero() || r.To.IsZero() {
			return bad("from and to (the first and last nights on sale) are required")
		}
	case RuleBookingWindow, RuleArrivalAdvance:
		switch {
		case r.Kind == RuleArrivalAdvance && (r.From.IsZero() || r.To.IsZero() || !r.To.After(r.From)):
			return bad("from and to are required, to after from (the check-in dates [from, to))")
		case r.Kind == RuleBookingWindow && (!r.From.IsZero() || !r.To.IsZero()):
			return bad("a booking window has no from and to: for some arrival dates, use an arrival_advance rule")
		case r.MinAdvance == nil || r.MaxAdvance == nil:
			return bad("minAdvance and maxAdvance are required")
		case nonNeg("minAdvance", r.MinAdvance) != nil || nonNeg("maxAdvance", r.MaxAdvance) != nil:
			return bad("minAdvance and maxAdvance must be between 0 and 3650")
		case *r.MaxAdvance < *r.MinAdvance:
			return bad("maxAdvance must not be below minAdvance")
		}
	case RuleLengthOfStay:
		switch {
		case r.MinLOS == nil || *r.MinLOS < 1 || *r.MinLOS > 365:
			return bad("minLos is required, between 1 and 365")
		case r.MaxLOS != nil && (*r.MaxLOS < *r.MinLOS || *r.MaxLOS > 365):
			return bad("maxLos must be between minLos and 365")
		case (r.DiscountFrom == nil) != (r.DiscountPercent == nil && r.DiscountAmount == nil):
			return bad("a discount needs discountFrom and one of discountPercent or discountAmount")
		case r.DiscountPercent != nil && r.DiscountAmount != nil:
			return bad("give discountPercent or discountAmount, not both")
		case r.DiscountFrom != nil && (*r.DiscountFrom < 1 || *r.DiscountFrom > 365):
			return bad("discountFrom must be between 1 and 365 nights")
		case r.DiscountPercent != nil && (*r.DiscountPercent < 1 || *r.DiscountPercent > 99):
			return bad("discountPercent must be between 1 and 99: a discount never makes a stay free")
		case r.DiscountAmount != nil && (*r.DiscountAmount < 1 || *r.DiscountAmount > 1_000_000_000):
			return bad("discountAmount must be between 1 and 1000000000 minor units per night")
		}
	default:
		return fmt.Errorf("%w: kind must be one of %v", ErrInvalid, RuleKinds)
	}
	if r.Kind != RuleStopSell && r.Reason != "" {
		return bad("only a stop-sell has a reason")
	}
	if r.Kind != RuleBookingWindow && r.Kind != RuleArrivalAdvance && (r.MinAdvance != nil || r.MaxAdvance != nil) {
		return bad("only a booking window or an arrival_advance rule has minAdvance and maxAdvance")
	}
	if r.Kind != RuleLengthOfStay && r.Kind != RuleStayThrough && (r.MinLOS != nil || r.MaxLOS != nil ||
		r.DiscountFrom != nil || r.DiscountPercent != nil || r.DiscountAmount != nil) {
		return bad("only a length-of-stay or stay-through rule has minLos and maxLos, and only the first a discount")
	}
	return nil
}

// SaleContext is what a sale is judged on: who sells which stay of which room type under which
// plan, and today's date at the hotel.
type SaleContext struct {
	HotelID    string
	RoomTypeID string
	RatePlan   string // empty: the hotel's default plan, DefaultRatePlan
	ChannelID  string // empty: a direct sale
	AgentID    string
	Stay       Stay
	Today      Date
}

// plan is the code of the plan sold: the default plan when the sale names none.
func (c SaleContext) plan() string {
	if c.RatePlan == "" {
		return DefaultRatePlan
	}
	return c.RatePlan
}

// throughChannel reports whether the sale is made by a channel or one of its agents.
func (c SaleContext) throughChannel() bool { return c.ChannelID != "" || c.AgentID != "" }

// RuleFinding is what one rule says about a sale.
type RuleFinding struct {
	Rule SaleRule `json:"rule"`
	// Default: the rule is the built-in default (no rule of its kind was set).
	Default bool `json:"default,omitempty"`
	// Allows is false when the rule alone makes the stay unavailable; Why says how.
	Allows bool   `json:"allows"`
	Why    string `json:"why"`
}

// Named is the finding as a refusal names it: the rule's id and kind, then why ("sale rule 12
// (stop_sell): stop-sell (event) closes the nights [...)"), or the default rule's kind.
func (f RuleFinding) Named() string {
	if f.Default || f.Rule.ID == 0 {
		return fmt.Sprintf("the default %s: %s", f.Rule.Kind, f.Why)
	}
	return fmt.Sprintf("sale rule %d (%s): %s", f.Rule.ID, f.Rule.Kind, f.Why)
}

// StopSold returns the stop-sell that closes a room type's night for every sale (one naming no
// channel, agent or rate plan, for the whole hotel or that room type), or nil. A plan's stop-sell
// closes that plan only: the restriction calendar shows it (RestrictionCalendar).
func StopSold(rules []SaleRule, hotelID, roomTypeID string, night Date) *SaleRule {
	c := SaleContext{HotelID: hotelID, RoomTypeID: roomTypeID}
	for i, r := range rules {
		if r.Kind == RuleStopSell && r.ChannelID == "" && r.AgentID == "" && r.RatePlan == "" && r.covers(c) &&
			!night.Before(r.From) && night.Before(r.To) {
			return &rules[i]
		}
	}
	return nil
}

// SaleVerdict is the outcome of every rule for a sale: whether the stay may be sold, the rules
// that apply (in evaluation order), the first that refuses it, and the discount a
// length-of-stay rule gives.
type SaleVerdict struct {
	Allowed  bool          `json:"allowed"`
	Findings []RuleFinding `json:"rules"`
	// Refusal is the first finding that refuses the stay (nil when allowed).
	Refusal *RuleFinding `json:"refusedBy,omitempty"`
	// Discount is the length-of-stay rule that discounts the stay, if any.
	Discount *SaleRule `json:"-"`
}

// EvaluateSale judges a sale by the rules of its hotel (rules of other hotels, and of other rate
// plans, are ignored): every stop-sell covering a night of the stay closes it; for each other kind
// one rule applies, the most specific: a channel's over an agent's over the hotel's global one,
// within each a plan's over one for every plan, and then a room type's over the whole hotel's. A channel's or agent's rule narrows the global rule of its
// kind (both must allow the stay) unless it overrides it. Sales through a channel or agent get
// the default booking window (1 to 365 days ahead) when no rule sets one.
func EvaluateSale(rules []SaleRule, c SaleContext) SaleVerdict {
	var v SaleVerdict
	add := func(f RuleFinding) {
		v.Findings = append(v.Findings, f)
	}
	var covering []SaleRule
	for _, r := range rules {
		if r.covers(c) {
			covering = append(covering, r)
		}
	}
	for _, r := range covering {
		if f, met := r.meetDates(c.Stay, c.Today); met {
			add(f)
		}
	}
	for _, kind := range []RuleKind{RuleSaleRange, RuleBookingWindow, RuleLengthOfStay} {
		chosen := choose(covering, kind, c)
		if kind == RuleBookingWindow && len(chosen) == 0 && c.throughChannel() {
			lo, hi := DefaultMinAdvance, DefaultMaxAdvance
			chosen = []SaleRule{{Kind: RuleBookingWindow, HotelID: c.HotelID, MinAdvance: &lo, MaxAdvance: &hi}}
		}
		for _, r := range chosen {
			f := r.judge(c)
			f.Default = r.ID == 0
			add(f)
			if f.Allows && kind == RuleLengthOfStay && r.discounts(c.Stay.Nights()) && v.Discount == nil {
				v.Discount = &r
			}
		}
	}
	v.Allowed = true
	for i := range v.Findings {
		if !v.Findings[i].Allows {
			v.Allowed, v.Refusal = false, &v.Findings[i]
			break
		}
	}
	if !v.Allowed {
		v.Discount = nil
	}
	return v
}

// covers reports whether the rule applies to the sale's hotel, room type, plan, channel and agent,
// and, for a length-of-stay rule, to its check-in date.
func (r SaleRule) covers(c SaleContext) bool {
	switch {
	case r.HotelID != c.HotelID,
		r.RoomTypeID != "" && r.RoomTypeID != c.RoomTypeID,
		r.RatePlan != "" && r.RatePlan != c.plan(),
		r.ChannelID != "" && r.ChannelID != c.ChannelID,
		r.AgentID != "" && r.AgentID != c.AgentID:
		return false
	case r.Kind == RuleLengthOfStay:
		return (r.From.IsZero() || !c.Stay.CheckIn.Before(r.From)) && (r.To.IsZero() || c.Stay.CheckIn.Before(r.To))
	}
	return true
}

// meetDates says what a dated restriction makes of a stay that meets its dates: a stop-sell
// closing one of its nights, a closed arrival or departure on its check-in or check-out, a
// stay-through rule bounding a stay with a night in its range, an arrival_advance rule bounding
// how far ahead its check-ins are booked (today, at the hotel). met is false for a stay that does
// not meet them, and for every other kind: those are chosen one per kind (choose).
func (r SaleRule) meetDates(stay Stay, today Date) (f RuleFinding, met bool) {
	in := func(d Date) bool { return !d.Before(r.From) && d.Before(r.To) }
	overlaps := r.From.Before(stay.CheckOut) && stay.CheckIn.Before(r.To)
	f = RuleFinding{Rule: r}
	switch {
	case r.Kind == RuleStopSell && overlaps:
		f.Why = fmt.Sprintf("stop-sell (%s) closes the nights [%s, %s)", r.Reason, r.From, r.To)
	case r.Kind == RuleClosedToArrival && in(stay.CheckIn):
		f.Why = fmt.Sprintf("closed to arrival on %s (the dates [%s, %s))", stay.CheckIn, r.From, r.To)
	case r.Kind == RuleClosedToDeparture && in(stay.CheckOut):
		f.Why = fmt.Sprintf("closed to departure on %s (the dates [%s, %s))", stay.CheckOut, r.From, r.To)
	case r.Kind == RuleArrivalAdvance && in(stay.CheckIn):
		ahead := today.DaysUntil(stay.CheckIn)
		f.Allows = ahead >= *r.MinAdvance && ahead <= *r.MaxAdvance
		f.Why = fmt.Sprintf("check-in on %s %d to %d days ahead (this one is %d days ahead)", stay.CheckIn, *r.MinAdvance,
			*r.MaxAdvance, ahead)
	case r.Kind == RuleStayThrough && overlaps:
		n := stay.Nights()
		f.Allows = n >= *r.MinLOS && (r.MaxLOS == nil || n <= *r.MaxLOS)
		night := stay.CheckIn // the stay's first night in the rule's range
		if night.Before(r.From) {
			night = r.From
		}
		f.Why = fmt.Sprintf("stays through the night of %s are of %s (this one has %d)", night, r.nightsText(), n)
	default:
		return f, false
	}
	return f, true
}

// level ranks how specific a rule is: a channel's (8) over an agent's (4) over a global one (0),
// plus two for naming a rate plan and one for naming a room type.
func (r SaleRule) level() int {
	l := 0
	switch {
	case r.ChannelID != "":
		l = 8
	case r.AgentID != "":
		l = 4
	}
	if r.RatePlan != "" {
		l += 2
	}
	if r.RoomTypeID != "" {
		l++
	}
	return l
}

func (r SaleRule) global() bool { return r.ChannelID == "" && r.AgentID == "" }

// choose returns the rules of kind that apply to the sale: the most specific one (the newest
// among equals), and the most specific global one beside it when the first is a channel's or
// agent's that does not override the global rule.
func choose(covering []SaleRule, kind RuleKind, c SaleContext) []SaleRule {
	var best, bestGlobal *SaleRule
	better := func(a, b *SaleRule) bool {
		return b == nil || cmp.Or(cmp.Compare(a.level(), b.level()), cmp.Compare(a.ID, b.ID)) > 0
	}
	for i := range covering {
		r := &covering[i]
		if r.Kind != kind {
			continue
		}
		if better(r, best) {
			best = r
		}
		if r.global() && better(r, bestGlobal) {
			bestGlobal = r
		}
	}
	switch {
	case best == nil:
		return nil
	case best.global() || best.OverridesGlobal || bestGlobal == nil:
		return []SaleRule{*best}
	}
	return []SaleRule{*best, *bestGlobal}
}

// judge says what one rule of a kind other than stop-sell makes of the sale.
func (r SaleRule) judge(c SaleContext) RuleFinding {
	f := RuleFinding{Rule: r, Allows: true}
	switch r.Kind {
	case RuleSaleRange:
		last := c.Stay.CheckOut.AddDays(-1)
		f.Allows = !c.Stay.CheckIn.Before(r.From) && !last.After(r.To)
		f.Why = fmt.Sprintf("sells the nights %s to %s", r.From, r.To)
	case RuleBookingWindow:
		ahead := c.Today.DaysUntil(c.Stay.CheckIn)
		f.Allows = ahead >= *r.MinAdvance && ahead <= *r.MaxAdvance
		f.Why = fmt.Sprintf("check-in %d to %d days ahead (this one is %d days ahead)", *r.MinAdvance, *r.MaxAdvance, ahead)
	case RuleLengthOfStay:
		n := c.Stay.Nights()
		f.Allows = n >= *r.MinLOS && (r.MaxLOS == nil || n <= *r.MaxLOS)
		f.Why = fmt.Sprintf("stays of %s (this one has %d)", r.nightsText(), n)
		if r.discounts(n) {
			f.Why += "; " + r.discountText()
		}
	}
	return f
}

// nightsText is a length rule's bounds: "2 to 5 nights", "at least 2 nights".
func (r SaleRule) nightsText() string {
	if r.MaxLOS != nil {
		return fmt.Sprintf("%d to %d nights", *r.MinLOS, *r.MaxLOS)
	}
	return fmt.Sprintf("at least %d nights", *r.MinLOS)
}

// discounts reports whether a stay of nights nights earns the rule's discount.
func (r SaleRule) discounts(nights int) bool {
	return r.DiscountFrom != nil && nights >= *r.DiscountFrom
}

func (r SaleRule) discountText() string {
	if r.DiscountPercent != nil {
		return fmt.Sprintf("%d%% off from %d nights", *r.DiscountPercent, *r.DiscountFrom)
	}
	return fmt.Sprintf("%d off every night from %d nights", *r.DiscountAmount, *r.DiscountFrom)
}

// Apply takes the rule's discount off every night of a price snapshot of quantity rooms: a
// percentage of each night (rounded down to a whole minor unit) or a fixed amount per room and
// night, leaving every room at least one minor unit a night (a discount never makes a night free). The
// nights still add up to the total. It returns the discounted price and the discount.
func (r SaleRule) Apply(p Price, quantity int) (Price, int64) {
	var discount int64
	nights := make([]NightRate, len(p.Nights))
	for i, n := range p.Nights {
		var off int64
		switch {
		case r.DiscountPercent != nil:
			off = n.Amount * int64(*r.DiscountPercent) / 100
		case r.DiscountAmount != nil:
			off = *r.DiscountAmount * int64(quantity)
		}
		off = max(min(off, n.Amount-int64(quantity)), 0) // at least one minor unit per room
		nights[i] = NightRate{Date: n.Date, Amount: n.Amount - off}
		discount += off
	}
	p.Nights, p.Total = nights, p.Total-discount
	return p, discount
}
