package domain

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"time"
)

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// ValidateCurrency checks an ISO 4217 currency code such as "EUR".
func ValidateCurrency(c string) error {
	if !currencyPattern.MatchString(c) {
		return fmt.Errorf("%w: currency must be an ISO 4217 code such as EUR", ErrInvalid)
	}
	return nil
}

// Money is an amount in minor units (cents) of a currency.
type Money struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// NightRate is the price of one night in minor units of the booking's currency.
type NightRate struct {
	Date   Date  `json:"date"`
	Amount int64 `json:"amount"`
}

// Price is a booking's price snapshot, taken when the hold is created, so later rate changes
// never alter what the guest owes or gets back. Amounts are integer minor units.
type Price struct {
	Currency string      `json:"currency"`
	Total    int64       `json:"total"`
	Nights   []NightRate `json:"nights"`
	Lines    []LinePrice `json:"lines,omitempty"` // a venue order's lines
}

// Matches reports whether a payment of amount in currency pays exactly this price.
func (p Price) Matches(amount int64, currency string) bool {
	return p.Currency != "" && p.Currency == currency && p.Total == amount
}

// CancellationPolicy decides how much of a payment a cancellation gives back. Until
// FreeUntilHours before check-in the refund is whole; after that a fee (FeePercent of the
// amount paid, or FeeFixed minor units of FeeCurrency, whichever is set) is kept; within
// NoRefundHours of check-in, and after check-in, nothing is refunded. Check-in is midnight at
// the start of the check-in date in the hotel's time zone, and the hours are counted on the
// hotel's clock. EarlyDeparture says what the nights not stayed give back when a guest leaves
// during the stay. A booking keeps the policy it was held under.
type CancellationPolicy struct {
	FreeUntilHours int    `json:"freeUntilHours"`
	FeePercent     int    `json:"feePercent"`
	FeeFixed       int64  `json:"feeFixed"`
	FeeCurrency    string `json:"feeCurrency,omitempty"`
	NoRefundHours  int    `json:"noRefundHours"`
	EarlyDeparture string `json:"earlyDeparture,omitempty"` // an EarlyDeparture* value; empty is none
	// NonRefundable: a cancel gives nothing back, whenever it comes (a rate plan's; a hotel's own
	// policy is never non-refundable).
	NonRefundable bool `json:"nonRefundable,omitempty"`
}

// What an early departure gives back of the nights not stayed: nothing, all of them, or all but
// the first (the hotel keeps one night for the short notice).
const (
	EarlyDepartureNone        = "none"
	EarlyDepartureAll         = "all"
	EarlyDepartureAllButFirst = "all_but_first"
)

// Validate checks the policy's numbers.
func (p CancellationPolicy) Validate() error {
	switch {
	case p.FreeUntilHours < 0 || p.NoRefundHours < 0 || p.FeeFixed < 0:
		return fmt.Errorf("%w: hours and fees cannot be negative", ErrInvalid)
	case p.FeePercent < 0 || p.FeePercent > 100:
		return fmt.Errorf("%w: feePercent must be between 0 and 100", ErrInvalid)
	case p.FeePercent > 0 && p.FeeFixed > 0:
		return fmt.Errorf("%w: set feePercent or feeFixed, not both", ErrInvalid)
	case p.FeeFixed > 0 && ValidateCurrency(p.FeeCurrency) != nil:
		return fmt.Errorf("%w: feeFixed needs its feeCurrency (an ISO 4217 code such as EUR)", ErrInvalid)
	case p.FeeFixed == 0 && p.FeeCurrency != "":
		return fmt.Errorf("%w: feeCurrency goes with feeFixed", ErrInvalid)
	case p.NoRefundHours > p.FreeUntilHours:
		return fmt.Errorf("%w: noRefundHours cannot exceed freeUntilHours", ErrInvalid)
	case p.EarlyDeparture != "" && p.EarlyDeparture != EarlyDepartureNone && p.EarlyDeparture != EarlyDepartureAll &&
		p.EarlyDeparture != EarlyDepartureAllButFirst:
		return fmt.Errorf("%w: earlyDeparture is none, all or all_but_first", ErrInvalid)
	case p.NonRefundable && (p.FreeUntilHours != 0 || p.FeePercent != 0 || p.FeeFixed != 0 || p.NoRefundHours != 0):
		return fmt.Errorf("%w: a non-refundable policy has no free window, fee or no-refund hours", ErrInvalid)
	case p.NonRefundable && p.EarlyDeparture != "" && p.EarlyDeparture != EarlyDepartureNone:
		return fmt.Errorf("%w: a non-refundable policy gives nothing back for an early departure either", ErrInvalid)
	}
	return nil
}

// Refund returns how much of paid (minor units of currency) goes back to a guest who cancels at
// instant now a stay checking in on checkIn at a hotel in loc. "48 hours before check-in" is
// the same wall-clock time two days earlier at the hotel, whatever a DST change in between does
// to the real hours. A fixed fee is kept only from a payment in its own currency.
func (p CancellationPolicy) Refund(paid int64, currency string, checkIn Date, loc *time.Location, now time.Time) int64 {
	return p.refund(paid, currency, now, func(hours int) time.Time { return checkIn.At(-hours, loc) })
}

// RefundBefore is Refund for a venue order, which starts at an instant (its first line's
// start), not at a date: its hours are real hours before start, as its free cancellation window
// counts them (Booking.FreeCancelEnded).
func (p CancellationPolicy) RefundBefore(paid int64, currency string, start, now time.Time) int64 {
	return p.refund(paid, currency, now, func(hours int) time.Time { return start.Add(-time.Duration(hours) * time.Hour) })
}

// refund is what the policy gives back of paid at instant now, before(hours) being the instant
// that many hours before the start.
func (p CancellationPolicy) refund(paid int64, currency string, now time.Time, before func(hours int) time.Time) int64 {
	switch {
	case p.NonRefundable:
		return 0
	case !now.Before(before(p.NoRefundHours)): // within the last hours before check-in, or later
		return 0
	case now.Before(before(p.FreeUntilHours)):
		return paid
	}
	fee := paid * int64(p.FeePercent) / 100
	if p.FeeCurrency == currency {
		fee += p.FeeFixed
	}
	return max(paid-fee, 0)
}

// EarlyDepartureRefund returns what a guest who leaves early gets back, by the policy, for the
// nights of [from, to) they will not stay, priced as the booking's price prices them (each
// night's amount is for all the booking's rooms; a total set by hand since scales every night
// alike). It is never more than paid, what the booking still keeps.
func (p CancellationPolicy) EarlyDepartureRefund(price Price, from, to Date, paid int64) int64 {
	var refund, all int64
	var first *NightRate
	for i, n := range price.Nights {
		all += n.Amount
		if n.Date.Before(from) || !n.Date.Before(to) {
			continue
		}
		refund += n.Amount
		if first == nil || n.Date.Before(first.Date) {
			first = &price.Nights[i]
		}
	}
	switch {
	case first == nil || p.EarlyDeparture != EarlyDepartureAll && p.EarlyDeparture != EarlyDepartureAllButFirst:
		return 0
	case p.EarlyDeparture == EarlyDepartureAllButFirst:
		refund -= first.Amount
	}
	if all > 0 && price.Total != all {
		refund = mulDiv(refund, price.Total, all)
	}
	return min(max(refund, 0), max(paid, 0))
}

// WithTotal is the price set to total by hand: its nights (a venue order's line totals) scaled in
// proportion, the rounding left on the last, so they still add up to the total and an amendment
// that keeps some of them keeps their share of it. A price of nothing puts it all on the first.
func (p Price) WithTotal(total int64) Price {
	p.Nights = slices.Clone(p.Nights)
	p.Lines = slices.Clone(p.Lines)
	amounts := make([]*int64, 0, len(p.Nights)+len(p.Lines))
	for i := range p.Nights {
		amounts = append(amounts, &p.Nights[i].Amount)
	}
	for i := range p.Lines {
		amounts = append(amounts, &p.Lines[i].Total)
	}
	var sum int64
	for _, a := range amounts {
		sum += *a
	}
	left := total
	for i, a := range amounts {
		switch {
		case i == len(amounts)-1:
			*a = left
		case sum == 0:
			*a = 0
			if i == 0 {
				*a = total
			}
		default:
			*a = mulDiv(total, *a, sum)
		}
		left -= *a
	}
	p.Total = total
	return p
}

// LessLastNights is the price with amount taken off its nights from the last one back: what an
// early departure refunded of the nights not stayed, which are the last ones.
func (p Price) LessLastNights(amount int64) Price {
	p.Nights = slices.Clone(p.Nights)
	for i := len(p.Nights) - 1; i >= 0 && amount > 0; i-- {
		take := min(amount, p.Nights[i].Amount)
		p.Nights[i].Amount -= take
		p.Total -= take
		amount -= take
	}
	p.Total -= amount // beyond the nights (never, as refunds go): still off the total
	return p
}

// mulDiv is a*b/c without overflowing on the way: amounts in minor units of a currency with no
// cents (VND, say) multiply past int64.
func mulDiv(a, b, c int64) int64 {
	return new(big.Int).Div(new(big.Int).Mul(big.NewInt(a), big.NewInt(b)), big.NewInt(c)).Int64()
}
