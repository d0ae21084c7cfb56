package domain

import (
	"encoding/json"
	"fmt"
	"time"
)

// DateLayout is the wire and database text form of a Date.
const DateLayout = "2006-01-02"

// Date is a calendar date local to a hotel or venue: no clock time, no time zone. A night of a
// stay is named by the Date it starts on. The zero Date is invalid.
type Date struct {
	t time.Time // always midnight UTC; the zone carries no meaning
}

// NewDate returns the date y-m-d, normalising out-of-range days like time.Date does.
func NewDate(y int, m time.Month, d int) Date {
	return Date{t: time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// DateOf returns the calendar date of instant t as seen in loc.
func DateOf(t time.Time, loc *time.Location) Date {
	y, m, d := t.In(loc).Date()
	return NewDate(y, m, d)
}

// ParseDate parses "YYYY-MM-DD".
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("%w: %q is not a date of the form YYYY-MM-DD", ErrInvalid, s)
	}
	return Date{t: t}, nil
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d.t.IsZero() }

// AddDays returns the date n days after d (before it for negative n).
func (d Date) AddDays(n int) Date { return Date{t: d.t.AddDate(0, 0, n)} }

// DaysUntil returns the number of days from d to e (negative when e is earlier).
func (d Date) DaysUntil(e Date) int { return int(e.t.Sub(d.t).Hours() / 24) }

// Before reports whether d is earlier than e.
func (d Date) Before(e Date) bool { return d.t.Before(e.t) }

// After reports whether d is later than e.
func (d Date) After(e Date) bool { return d.t.After(e.t) }

// Time returns midnight UTC of d, the form database drivers bind to a date column.
func (d Date) Time() time.Time { return d.t }

// In returns the instant d starts in loc: local midnight, or, where clocks jump over midnight
// that day, the first instant of the day.
func (d Date) In(loc *time.Location) time.Time { return d.At(0, loc) }

// At returns the instant loc's clocks show hour o'clock on d; hour may be negative or past 23
// and counts on the wall clock (-48 is midnight two days before, whatever DST does between). A
// wall-clock time that does not exist (clocks jumped over it) gives the first instant after
// the jump.
func (d Date) At(hour int, loc *time.Location) time.Time { return d.AtMinute(hour*60, loc) }

// AtMinute is At for a wall-clock time of minutes past midnight. A time the clocks show twice
// gives the first instant.
func (d Date) AtMinute(minutes int, loc *time.Location) time.Time {
	y, m, dd := d.t.Date()
	want := time.Date(y, m, dd, 0, minutes, 0, 0, time.UTC) // the wall-clock time, normalised
	t := time.Date(y, m, dd, 0, minutes, 0, 0, loc)
	shown := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	switch start, end := t.ZoneBounds(); {
	case shown.Before(want): // Go placed it before the jump: the jump ends the zone t is in
		return end
	case shown.After(want): // after the jump: the jump starts the zone t is in
		return start
	}
	// A wall-clock time the clocks show twice (they went back over it): Go may pick either;
	// the first is when the clocks first show it.
	if start, _ := t.ZoneBounds(); !start.IsZero() {
		_, before := start.Add(-time.Nanosecond).Zone()
		_, after := t.Zone()
		if back := time.Duration(before-after) * time.Second; back > 0 && t.Sub(start) < back {
			return t.Add(-back)
		}
	}
	return t
}

func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.t.Format(DateLayout)
}

// MarshalText writes d as YYYY-MM-DD (the zero Date as nothing), which JSON quotes: by hand, and
// as text rather than JSON (which encoding/json would compact again), as a search's answer holds
// thousands of dates and json.Marshal of d.String() was a third of its encoding.
func (d Date) MarshalText() ([]byte, error) { return d.AppendText(make([]byte, 0, 10)) }

// AppendText appends MarshalText's bytes to b: a search's answer, encoded by hand, writes
// thousands of dates into one buffer.
func (d Date) AppendText(b []byte) ([]byte, error) {
	if d.IsZero() {
		return b, nil
	}
	y, m, day := d.t.Date()
	if y < 0 || y > 9999 {
		return append(b, d.String()...), nil
	}
	return append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+int(m)/10), byte('0'+int(m)%10), '-', byte('0'+day/10), byte('0'+day%10)), nil
}

// UnmarshalJSON reads "YYYY-MM-DD"; an empty string gives the zero Date.
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%w: a date must be a string of the form YYYY-MM-DD", ErrInvalid)
	}
	if s == "" {
		*d = Date{}
		return nil
	}
	parsed, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}
