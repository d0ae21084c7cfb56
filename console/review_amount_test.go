package console

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReviewAmountsOfEveryISOCurrencyInTheirMinorUnit: the API takes any three-letter currency
// (domain.ValidateCurrency), and the console reads and shows amounts by its own short table of
// exponents, every other currency as hundredths. A court priced 1500 XOF (CFA francs have no
// minor unit) shows as "XOF 15.00", and a desk typing the 1500 francs a guest hands over
// sends 150000; a Bahraini-style three-decimal currency missing from the table (IQD, LYD)
// is off by ten the other way.
func TestReviewAmountsOfEveryISOCurrencyInTheirMinorUnit(t *testing.T) {
	assert.Equal(t, "JPY 1500", formatMoney(1500, "JPY"), "the control: a currency in the table")
	for _, c := range []struct {
		currency, shown string
		minor           int64
	}{
		{"XOF", "XOF 1500", 1500}, {"XAF", "XAF 1500", 1500}, {"UGX", "UGX 1500", 1500}, {"RWF", "RWF 1500", 1500},
		{"PYG", "PYG 1500", 1500}, {"XPF", "XPF 1500", 1500}, {"IQD", "IQD 1.500", 1500}, {"LYD", "LYD 1.500", 1500},
	} {
		assert.Equal(t, c.shown, formatMoney(c.minor, c.currency), c.currency)
		typed := c.shown[len(c.currency)+1:]
		got, err := parseAmount(typed, c.currency)
		if assert.NoError(t, err, c.currency) {
			assert.Equal(t, c.minor, got, "%s typed as %s", c.currency, typed)
		}
	}
}
