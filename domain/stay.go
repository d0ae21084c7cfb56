package domain

import "fmt"

// Stay is the half-open range of nights [CheckIn, CheckOut): a stay from the 10th to the 13th
// is the nights of the 10th, 11th and 12th; the check-out date is never counted.
type Stay struct {
	CheckIn  Date `json:"checkIn"`
	CheckOut Date `json:"checkOut"`
}

// Nights returns the number of nights in the stay.
func (s Stay) Nights() int { return s.CheckIn.DaysUntil(s.CheckOut) }

// NightDates returns every night of the stay in ascending order.
func (s Stay) NightDates() []Date {
	out := make([]Date, 0, max(s.Nights(), 0))
	for d := s.CheckIn; d.Before(s.CheckOut); d = d.AddDays(1) {
		out = append(out, d)
	}
	return out
}

// Validate checks the stay's shape: both dates set, check-out after check-in, and at most
// maxNights nights.
func (s Stay) Validate(maxNights int) error {
	switch {
	case s.CheckIn.IsZero() || s.CheckOut.IsZero():
		return fmt.Errorf("%w: checkIn and checkOut are required", ErrInvalid)
	case !s.CheckOut.After(s.CheckIn):
		return fmt.Errorf("%w: checkOut must be after checkIn", ErrInvalid)
	case s.Nights() > maxNights:
		return fmt.Errorf("%w: a stay may last at most %d nights, this one has %d", ErrInvalid, maxNights, s.Nights())
	}
	return nil
}

// ValidateWindow checks that the stay starts no earlier than today (the hotel's local date) and
// no later than the last date on sale, today + horizonDays.
func (s Stay) ValidateWindow(today Date, horizonDays int) error {
	if s.CheckIn.Before(today) {
		return fmt.Errorf("%w: checkIn %s is in the past (today is %s at the hotel)", ErrInvalid, s.CheckIn, today)
	}
	if last := today.AddDays(horizonDays); s.CheckIn.After(last) {
		return fmt.Errorf("%w: checkIn %s is beyond the sale horizon (last date on sale is %s)", ErrInvalid, s.CheckIn, last)
	}
	return nil
}
