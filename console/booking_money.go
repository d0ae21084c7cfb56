package console

import (
	"strings"

	"github.com/bookflow/bookflow/db"
)

// moneySum is the booking page's money, summed as the API sums it (db.MoneySummary): Paid is
// what the payments the booking keeps brought, Refunded and Refunding what of it went back or
// is on its way, Kept what is left (Paid - Refunded - Refunding). Due is the price and the
// folio's extras less what was paid and what a channel owes, plus what reversals of desk
// payments gave back (those are
// due again; any other refund that kept the booking, a goodwill one, is not), while the booking
// holds its units.
type moneySum struct {
	Currency                                 string
	Price, Extras, Paid, Refunded, Refunding int64
	Kept, OnAccount, Reversed, Due           int64
	DueSum                                   string // the arithmetic that gives Due, in words
}

// sumMoney sums booking b's money from the API's summary and ledger balances, and says how Due
// comes about. When the console's sum is not the API's (it never should be), the page shows
// the API's Due without a sum, and the log says so.
func (r *request) sumMoney(b bookingWithMoney, balances db.LedgerMoney) moneySum {
	m := b.Money
	cur := b.Price.Currency
	s := moneySum{Currency: cur, Price: b.Price.Total, Extras: m.Extras, Paid: m.Paid, Refunded: m.Refunded, Refunding: m.Refunding,
		Kept: m.Paid - m.Refunded - m.Refunding, OnAccount: m.OnAccount, Reversed: balances.Reversed, Due: m.Due}
	raw := s.Price + s.Extras - s.Paid - s.OnAccount + s.Reversed
	terms := []string{r.text.T("booking.sum.price", formatAmount(s.Price, cur))}
	if s.Extras > 0 {
		terms = append(terms, r.text.T("booking.sum.extras", formatAmount(s.Extras, cur)))
	}
	terms = append(terms, r.text.T("booking.sum.paid", formatAmount(s.Paid, cur)))
	if s.Reversed > 0 {
		terms = append(terms, r.text.T("booking.sum.reversed", formatAmount(s.Reversed, cur)))
	}
	if s.OnAccount > 0 {
		terms = append(terms, r.text.T("booking.sum.onAccount", formatAmount(s.OnAccount, cur)))
	}
	sum := strings.Join(terms, " ")
	switch {
	case !b.Status.HoldsInventory() && s.Due == 0:
		s.DueSum = r.text.T("booking.sum.ended", r.text.T("status."+string(b.Status)))
	case raw == s.Due:
		s.DueSum = r.text.T("booking.sum.due", sum, formatAmount(s.Due, cur))
	case raw < 0 && s.Due == 0:
		s.DueSum = r.text.T("booking.sum.nothing", sum, formatAmount(raw, cur))
	default:
		r.c.cfg.Logger.Warn("console: a booking's due is not its sum", "booking", b.ID, "due", s.Due, "sum", raw)
	}
	return s
}
