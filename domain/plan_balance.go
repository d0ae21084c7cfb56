package domain

import "time"

// A deposit plan's booking (PaymentRule PayDeposit) is confirmed by its deposit and owes the rest
// of its price by a date before its arrival; a balance not paid by then cancels it under its
// policy. docs/rates-and-restrictions.md ("Payment rules") is the contract.

// Deposit is what of total confirms a booking under r: DepositPercent of it, rounded up to the
// next minor unit (never less than the percent asks), in integer arithmetic. 0 for a rule that
// takes no deposit.
func (r PaymentRule) Deposit(total int64) int64 {
	if r.Kind != PayDeposit || total <= 0 {
		return 0
	}
	pct := int64(r.DepositPercent)
	// total*pct overflows only beyond 9.2e16 minor units: split to stay exact below that.
	whole, rest := total/100, total%100
	return whole*pct + (rest*pct+99)/100
}

// BalanceDueAt is when the rest of a deposit booking's price is due: BalanceDueDays before its
// check-in (midnight starting the check-in date), counted in days on the hotel's calendar, so a
// DST change between moves nothing. Zero for a rule that takes no deposit.
func (r PaymentRule) BalanceDueAt(checkIn Date, loc *time.Location) time.Time {
	if r.Kind != PayDeposit || r.BalanceDueDays == nil {
		return time.Time{}
	}
	return checkIn.AddDays(-*r.BalanceDueDays).In(loc).UTC()
}

// paymentRule is the rule the booking was sold under (full for the default plan's).
func (b Booking) paymentRule() PaymentRule {
	if b.PlanTerms == nil {
		return PaymentRule{Kind: PayInFull}
	}
	return b.PlanTerms.Payment
}

// DepositDue is what a deposit booking on hold asks to be confirmed, less what the desk took of
// it already: 0 for any other booking, and for one whose balance date had passed when it was held
// (it is paid in full).
func (b Booking) DepositDue() int64 {
	if b.Status != StatusHold || b.BalanceDueAt.IsZero() {
		return 0
	}
	return max(b.paymentRule().Deposit(b.Price.Total)-b.Paid, 0)
}

// PaysDeposit reports whether a payment of amount in currency confirms booking b, on hold, by
// its deposit (the whole rest of its price confirms any hold).
func (b Booking) PaysDeposit(amount int64, currency string) bool {
	due := b.DepositDue()
	return due > 0 && amount == due && currency == b.Price.Currency && b.Paid+amount < b.Price.Total
}

// PlanBalance is what a booking confirmed by its deposit still owes of its price, due by
// BalanceDueAt; 0 when it owes nothing, or is not confirmed by a deposit. It is its price less
// what its payments brought (PlanOwed, read by the database), never less its paid: a refund that
// keeps the units (goodwill) is money given, not owed back.
func (b Booking) PlanBalance() int64 {
	switch {
	case b.Status != StatusConfirmed || b.BalanceDueAt.IsZero():
		return 0
	case b.PlanOwed == nil: // a workflow's result recorded before PlanOwed was read replays as it ran
		return max(b.Price.Total-b.Paid, 0)
	}
	return *b.PlanOwed
}
