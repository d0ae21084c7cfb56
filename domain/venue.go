package domain

import (
	"fmt"
	"slices"
	"time"
)

// Venue is a sports venue: its resources are sold by the slot or the hour, laid out and shown in
// its time zone.
type Venue struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	TimeZone string `json:"timeZone"`
	// PaymentWindowMinutes is how long a hold waits for its payment (15 by default, against 10
	// for hotels).
	PaymentWindowMinutes int `json:"paymentWindowMinutes"`
	// FreeCancelHours: a customer may cancel for free until this many hours before the slot
	// starts, and not at all afterwards (staff may still refund).
	FreeCancelHours int `json:"freeCancelHours"`
	// NoShowGraceMinutes: a paid booking nobody checked in this long after its end is a no-show.
	NoShowGraceMinutes int `json:"noShowGraceMinutes"`
	// Country (ISO 3166-1 alpha-2, "" for none) is where the desk's national phone numbers are
	// read (NormalisePhoneIn).
	Country string `json:"country,omitempty"`
}

// NewVenue is a venue with the default terms.
func NewVenue(id, name, timeZone string) Venue {
	return Venue{ID: id, Name: name, TimeZone: timeZone, PaymentWindowMinutes: DefaultVenuePaymentWindowMinutes,
		FreeCancelHours: DefaultVenueFreeCancelHours, NoShowGraceMinutes: DefaultVenueNoShowGraceMinutes}
}

// Venue defaults for fields left out.
const (
	DefaultVenuePaymentWindowMinutes = 15
	DefaultVenueFreeCancelHours      = 24
	DefaultVenueNoShowGraceMinutes   = 15
)

// Validate checks the venue's fields, filling in the payment window when left at zero (the other
// terms may be zero: see NewVenue for their defaults).
func (v *Venue) Validate() error {
	if err := ValidateID("venueId", v.ID); err != nil {
		return err
	}
	if Longer(v.Name, 200) {
		return fmt.Errorf("%w: name is at most 200 characters", ErrInvalid)
	}
	if v.TimeZone == "" {
		return fmt.Errorf("%w: timeZone is required (an IANA name such as Europe/Berlin)", ErrInvalid)
	}
	if _, err := time.LoadLocation(v.TimeZone); err != nil || v.TimeZone == "Local" {
		return fmt.Errorf("%w: timeZone %q is not an IANA time zone", ErrInvalid, v.TimeZone)
	}
	if err := ValidateCountry("country", v.Country); err != nil {
		return err
	}
	if v.PaymentWindowMinutes == 0 {
		v.PaymentWindowMinutes = DefaultVenuePaymentWindowMinutes
	}
	switch {
	case v.PaymentWindowMinutes < 1 || v.PaymentWindowMinutes > 24*60:
		return fmt.Errorf("%w: paymentWindowMinutes must be between 1 and 1440", ErrInvalid)
	case v.FreeCancelHours < 0 || v.FreeCancelHours > 24*365:
		return fmt.Errorf("%w: freeCancelHours must be between 0 and 8760", ErrInvalid)
	case v.NoShowGraceMinutes < 0 || v.NoShowGraceMinutes > 24*60:
		return fmt.Errorf("%w: noShowGraceMinutes must be between 0 and 1440", ErrInvalid)
	}
	return nil
}

// ResourceKind is how a venue's resource is sold.
type ResourceKind string

// The kinds of venue resource. Hotels' room types are the fourth kind of resource, sold by the
// night.
const (
	// KindExclusiveSlot: a court; one slot is one unit, the first to lock it wins.
	KindExclusiveSlot ResourceKind = "exclusive_slot"
	// KindQuotaSlot: a lane or a class; one slot has capacity places.
	KindQuotaSlot ResourceKind = "quota_slot"
	// KindEquipment: rackets, lockers; rented by the hour or the day, capacity items.
	KindEquipment ResourceKind = "equipment"
)

// venuePublicReasons replace, for a venue order, the public reasons that speak of a hotel's
// rooms and nights.
var venuePublicReasons = map[Status]string{
	StatusRejected: "the slots or items asked for are not all available at the times asked for",
}

// Time units a venue's resource is sold by.
const (
	UnitSlot = "slot"
	UnitHour = "hour"
	UnitDay  = "day"
)

// VenueResource is something a venue sells by the unit of time.
type VenueResource struct {
	ID       string       `json:"id"`
	VenueID  string       `json:"venueId"`
	Kind     ResourceKind `json:"kind"`
	Unit     string       `json:"unit"` // slot for slots; hour or day for equipment
	Name     string       `json:"name"`
	Sport    string       `json:"sport,omitempty"`
	Capacity int          `json:"capacity"` // 1 for an exclusive slot
}

// Validate checks the resource, filling in the unit and capacity an exclusive slot implies.
func (r *VenueResource) Validate() error {
	if err := ValidateID("resourceId", r.ID); err != nil {
		return err
	}
	if r.Sport != "" {
		if err := ValidateID("sport", r.Sport); err != nil {
			return err
		}
	}
	if Longer(r.Name, 200) {
		return fmt.Errorf("%w: name is at most 200 characters", ErrInvalid)
	}
	switch r.Kind {
	case KindExclusiveSlot:
		if r.Capacity == 0 {
			r.Capacity = 1
		}
		if r.Capacity != 1 {
			return fmt.Errorf("%w: an exclusive slot has capacity 1", ErrInvalid)
		}
		fallthrough
	case KindQuotaSlot:
		if r.Unit == "" {
			r.Unit = UnitSlot
		}
		if r.Unit != UnitSlot {
			return fmt.Errorf("%w: a %s is sold by the slot", ErrInvalid, r.Kind)
		}
	case KindEquipment:
		if r.Unit != UnitHour && r.Unit != UnitDay {
			return fmt.Errorf("%w: equipment is rented by the hour or the day (unit hour or day)", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: kind must be exclusive_slot, quota_slot or equipment", ErrInvalid)
	}
	if r.Capacity < 1 || r.Capacity > 10000 {
		return fmt.Errorf("%w: capacity must be between 1 and 10000", ErrInvalid)
	}
	return nil
}

// Span is a real span of time [Start, End).
type Span struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Schedule lays a resource's units out over the dates [From, To): on each of those local dates
// whose weekday is listed, from Opens to Closes (local wall-clock times, "HH:MM"; "24:00" is the
// end of the day), one unit every SlotMinutes of real time, each at Price. Equipment by the day
// has one unit per listed date, from midnight to midnight, and ignores the hours.
type Schedule struct {
	From        Date   `json:"from"`
	To          Date   `json:"to"`
	Weekdays    []int  `json:"weekdays"` // 1 (Monday) to 7 (Sunday); empty means every day
	Opens       string `json:"opens"`
	Closes      string `json:"closes"`
	SlotMinutes int    `json:"slotMinutes"`
	Price       Money  `json:"price"`
}

// Bounds of one schedule request: its days, and a unit's price (ten million in major units).
const (
	MaxScheduleDays = 400
	MaxUnitPrice    = 1_000_000_000
)

// Validate checks the schedule for a resource sold by unit.
func (s *Schedule) Validate(unit string) error {
	switch {
	case s.From.IsZero() || s.To.IsZero():
		return fmt.Errorf("%w: from and to are required", ErrInvalid)
	case !s.To.After(s.From):
		return fmt.Errorf("%w: to must be after from", ErrInvalid)
	case s.From.DaysUntil(s.To) > MaxScheduleDays:
		return fmt.Errorf("%w: a schedule covers at most %d days", ErrInvalid, MaxScheduleDays)
	}
	for _, d := range s.Weekdays {
		if d < 1 || d > 7 {
			return fmt.Errorf("%w: weekdays are 1 (Monday) to 7 (Sunday)", ErrInvalid)
		}
	}
	if err := ValidateCurrency(s.Price.Currency); err != nil {
		return err
	}
	if s.Price.Amount < 0 || s.Price.Amount > MaxUnitPrice {
		return fmt.Errorf("%w: price.amount must be between 0 and %d minor units", ErrInvalid, int64(MaxUnitPrice))
	}
	if unit == UnitDay {
		return nil
	}
	opens, err1 := parseClock(s.Opens)
	closes, err2 := parseClock(s.Closes)
	switch {
	case err1 != nil || err2 != nil:
		return fmt.Errorf("%w: opens and closes are local times HH:MM (closes may be 24:00)", ErrInvalid)
	case closes <= opens:
		return fmt.Errorf("%w: closes must be after opens", ErrInvalid)
	}
	if unit == UnitHour && s.SlotMinutes == 0 {
		s.SlotMinutes = 60
	}
	switch {
	case unit == UnitHour && s.SlotMinutes != 60:
		return fmt.Errorf("%w: equipment by the hour has 60-minute units", ErrInvalid)
	case s.SlotMinutes < 5 || s.SlotMinutes > 24*60:
		return fmt.Errorf("%w: slotMinutes must be between 5 and 1440", ErrInvalid)
	}
	return nil
}

// Units returns the spans the schedule lays out in loc, in ascending order. Units run in real
// time from the opening instant, so on the day the clocks go back the repeated hour holds two
// units, and on the day they go forward the skipped hour holds none.
func (s Schedule) Units(unit string, loc *time.Location) []Span {
	var out []Span
	for d := s.From; d.Before(s.To); d = d.AddDays(1) {
		if len(s.Weekdays) > 0 && !slices.Contains(s.Weekdays, isoWeekday(d.Time())) {
			continue
		}
		if unit == UnitDay {
			out = append(out, DayBounds(d, loc))
			continue
		}
		opens, _ := parseClock(s.Opens)
		closes, _ := parseClock(s.Closes)
		start, end := d.AtMinute(opens, loc), d.AtMinute(closes, loc)
		step := time.Duration(s.SlotMinutes) * time.Minute
		if step <= 0 {
			return nil // not validated
		}
		for t := start; !t.Add(step).After(end); t = t.Add(step) {
			out = append(out, Span{Start: t.UTC(), End: t.Add(step).UTC()})
		}
	}
	return out
}

// DayBounds returns the real span of a local date in loc: from its first instant to the next
// date's.
func DayBounds(d Date, loc *time.Location) Span {
	return Span{Start: d.In(loc).UTC(), End: d.AddDays(1).In(loc).UTC()}
}

func isoWeekday(t time.Time) int {
	if t.Weekday() == time.Sunday {
		return 7
	}
	return int(t.Weekday())
}

// parseClock reads "HH:MM" (00:00 to 24:00) as minutes past midnight.
func parseClock(s string) (int, error) {
	digit := func(i int) (int, bool) { return int(s[i] - '0'), s[i] >= '0' && s[i] <= '9' }
	if len(s) != 5 || s[2] != ':' {
		return 0, fmt.Errorf("bad clock %q", s)
	}
	h1, ok1 := digit(0)
	h2, ok2 := digit(1)
	m1, ok3 := digit(3)
	m2, ok4 := digit(4)
	h, m := h1*10+h2, m1*10+m2
	if !ok1 || !ok2 || !ok3 || !ok4 || h > 24 || m > 59 || (h == 24 && m != 0) {
		return 0, fmt.Errorf("bad clock %q", s)
	}
	return h*60 + m, nil
}
