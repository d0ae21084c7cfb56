package domain

import (
	"fmt"
	"regexp"
	"strings"
)

// WalkInPrefix starts the customer id of a person the front desk booked for by phone number,
// without an account.
const WalkInPrefix = "walk-in:"

// dialling is a country's calling code and the trunk prefix its national numbers are dialled
// with inside the country (dropped in the international form).
type dialling struct {
	code  string
	trunk string
}

// diallingPlans are the countries whose national numbers the desk may type without the country
// code (ITU-T E.164 assignments). Italy and Spain, Poland and Czechia have no trunk prefix: an
// Italian number keeps its leading 0 ("06 1234 5678" is +39 06 1234 5678). The North American
// plan's trunk prefix is 1.
var diallingPlans = map[string]dialling{
	"AT": {"43", "0"}, "CA": {"1", "1"}, "CH": {"41", "0"}, "CN": {"86", "0"}, "CZ": {"420", ""},
	"DE": {"49", "0"}, "ES": {"34", ""}, "FR": {"33", "0"}, "GB": {"44", "0"}, "HU": {"36", "06"},
	"IT": {"39", ""}, "JP": {"81", "0"}, "NL": {"31", "0"}, "PL": {"48", ""}, "US": {"1", "1"},
}

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

// ValidateCountry accepts an ISO 3166-1 alpha-2 code in upper case ("HU"), or none.
func ValidateCountry(field, c string) error {
	if c != "" && !countryCode.MatchString(c) {
		return fmt.Errorf("%w: %s must be an ISO 3166-1 alpha-2 country code in capitals, such as HU", ErrInvalid, field)
	}
	return nil
}

// NormalisePhone turns a phone number as staff type it ("+49 (151) 123-45 678", "0049 151...")
// into E.164 ("+4915112345678"): a leading + or 00, then 8 to 15 digits; spaces, dots, dashes,
// slashes and parentheses are dropped. A number without its country code is refused, since
// the same local number means different people in different countries.
func NormalisePhone(s string) (string, error) {
	return NormalisePhoneIn(s, "")
}

// NormalisePhoneIn is NormalisePhone for a site in country (ISO 3166-1 alpha-2, "" for none):
// a national number, without + or 00, is read as dialled there. Its trunk prefix, when it has
// one, is dropped and the country's calling code put before it ("06 30 123 4567" in HU is
// +36301234567; "30 123 4567" too). A national number at a site without a country, or in a
// country missing from diallingPlans, is refused as NormalisePhone refuses it.
func NormalisePhoneIn(s, country string) (string, error) {
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
	plan, known := diallingPlans[country]
	if !strings.HasPrefix(n, "+") && n != "" {
		switch {
		case country == "":
			return "", fmt.Errorf("%w: phone needs its country code (+36 30 ..., +49 151 ...): the site has no country "+
				"to read a national number in", ErrInvalid)
		case !known:
			return "", fmt.Errorf("%w: phone needs its country code (+36 30 ..., +49 151 ...): national numbers of %s "+
				"are not read", ErrInvalid, country)
		}
		national := strings.TrimPrefix(n, plan.trunk)
		if national == "" || national[0] == '0' && plan.trunk != "" {
			return "", fmt.Errorf("%w: phone is not a number of %s: give it with its country code (+%s ...)", ErrInvalid, country, plan.code)
		}
		n = "+" + plan.code + national
	}
	if !strings.HasPrefix(n, "+") || len(n) < 9 || len(n) > 16 || n[1] == '0' {
		return "", fmt.Errorf("%w: phone must be an international number with its country code (+49 151 ...), 8 to 15 digits", ErrInvalid)
	}
	return n, nil
}

// CallingCode is country's calling code ("36" for HU), when its national numbers are read.
func CallingCode(country string) (string, bool) {
	p, ok := diallingPlans[country]
	return p.code, ok
}
