package console

import (
	"testing"
	"text/template/parse"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAmountsReadAndShowInTheCurrencysMinorUnits(t *testing.T) {
	for _, c := range []struct {
		in       string
		currency string
		minor    int64
	}{{"12.50", "EUR", 1250}, {"12.5", "EUR", 1250}, {"12", "EUR", 1200}, {"0.07", "EUR", 7}, {"1500", "JPY", 1500},
		{" 3.000 ", "KWD", 3000}} {
		got, err := parseAmount(c.in, c.currency)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.minor, got, c.in)
	}
	for _, bad := range []string{"", "-1", "1.234", "1.", ".5", "1,50", "1e3", "12.5.0", "9999999999999"} {
		_, err := parseAmount(bad, "EUR")
		assert.Error(t, err, bad)
	}
	_, err := parseAmount("1.5", "JPY")
	assert.Error(t, err)
	assert.Equal(t, "420.00", formatAmount(42000, "EUR"))
	assert.Equal(t, "0.05", formatAmount(5, "EUR"))
	assert.Equal(t, "-1.20", formatAmount(-120, "EUR"))
	assert.Equal(t, "JPY 1500", formatMoney(1500, "JPY"))
}

func TestEveryPageParses(t *testing.T) {
	p, err := parsePages()
	require.NoError(t, err)
	for _, name := range []string{"home", "error", "signin", "venue_day", "hotel_day", "booking", "walk_in"} {
		assert.Contains(t, p.byName, name)
	}
}

// TestEveryTemplateAPageCallsExists: html/template finds a missing {{template "x"}} only when
// the page is drawn; this finds it when the pages are parsed.
func TestEveryTemplateAPageCallsExists(t *testing.T) {
	p, err := parsePages()
	require.NoError(t, err)
	for page, set := range p.byName {
		for _, tmpl := range set.Templates() {
			if tmpl.Tree == nil {
				continue
			}
			walk(tmpl.Tree.Root, func(n *parse.TemplateNode) {
				assert.NotNil(t, set.Lookup(n.Name), "page %s calls template %q, which no file defines", page, n.Name)
			})
		}
	}
}

func walk(n parse.Node, found func(*parse.TemplateNode)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				walk(c, found)
			}
		}
	case *parse.TemplateNode:
		found(n)
	case *parse.IfNode:
		walk(n.List, found)
		walk(n.ElseList, found)
	case *parse.RangeNode:
		walk(n.List, found)
		walk(n.ElseList, found)
	case *parse.WithNode:
		walk(n.List, found)
		walk(n.ElseList, found)
	}
}

// TestAmountsOfEveryISOCurrencyInTheirMinorUnit: the API takes any three-letter currency
// (domain.ValidateCurrency), and the console reads and shows amounts by its own short table of
// exponents, every other currency as hundredths. A court priced 1500 XOF (CFA francs have no
// minor unit) shows as "XOF 15.00", and a desk typing the 1500 francs a guest hands over
// sends 150000; a Bahraini-style three-decimal currency missing from the table (IQD, LYD)
// is off by ten the other way.
func TestAmountsOfEveryISOCurrencyInTheirMinorUnit(t *testing.T) {
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
