package domain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A night's root plans' own rates as text, "code=amount:currency,...": plan codes are ids and a
// currency three letters, so neither holds ',', '=' or ':'. The cache keeps them so, and the
// database answers them so (string_agg): a JSON object a night cost a search of 20 plans more
// than the rest of its read.

// PlanRatesText writes rates in code order ("" when none).
func PlanRatesText(rates map[string]Money) string {
	plans := make([]string, 0, len(rates))
	for code, m := range rates {
		plans = append(plans, code+"="+strconv.FormatInt(m.Amount, 10)+":"+m.Currency)
	}
	slices.Sort(plans)
	return strings.Join(plans, ",")
}

// ParsePlanRates reads PlanRatesText's format, in any order: "" is none (nil).
func ParsePlanRates(s string) (map[string]Money, error) {
	if s == "" {
		return nil, nil
	}
	out := make(map[string]Money, strings.Count(s, ",")+1)
	for rest, more := s, true; more; {
		var plan string
		plan, rest, more = strings.Cut(rest, ",")
		code, money, ok1 := strings.Cut(plan, "=")
		amount, currency, ok2 := strings.Cut(money, ":")
		n, err := strconv.ParseInt(amount, 10, 64)
		if !ok1 || !ok2 || err != nil {
			return nil, fmt.Errorf("malformed plan rates %q", s)
		}
		out[code] = Money{Amount: n, Currency: currency}
	}
	return out, nil
}
