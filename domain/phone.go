package domain

import (
	"fmt"
	"strings"
)

// WalkInPrefix starts the customer id of a person the front desk booked for by phone number,
// without an account.
const WalkInPrefix = "walk-in:"

// NormalisePhone turns a phone number as staff type it ("+49 (151) 123-45 678", "0049 151...")
// into E.164 ("+4915112345678"): a leading + or 00, then 8 to 15 digits; spaces, dots, dashes,
// slashes and parentheses are dropped. A number without its country code is refused, since
// the same local number means different people in different countries.
func NormalisePhone(s string) (string, error) {
	var b strings.Builder
	for i, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+' && i == 0:
			b.WriteRune(r)
		case strings.ContainsRune(" .-/()", r):
		default:
			return "", fmt.Errorf("%w: phone may hold only digits, a leading +, spaces, dots, dashes, slashes and parentheses", ErrInvalid)
		}
	}
	n := b.String()
	if strings.HasPrefix(n, "00") {
		n = "+" + n[2:]
	}
	if !strings.HasPrefix(n, "+") || len(n) < 9 || len(n) > 16 || n[1] == '0' {
		return "", fmt.Errorf("%w: phone must be an international number with its country code (+49 151 ...), 8 to 15 digits", ErrInvalid)
	}
	return n, nil
}
