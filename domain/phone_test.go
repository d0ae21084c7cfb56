package domain_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

// TestNationalNumbersAreReadInTheSitesCountry: real numbers as people say them at home, each
// with and without its trunk prefix where the country has one; an Italian number keeps its 0.
func TestNationalNumbersAreReadInTheSitesCountry(t *testing.T) {
	for _, c := range []struct{ country, in, want string }{
		{"HU", "06 30 123 4567", "+36301234567"},
		{"HU", "30 123 4567", "+36301234567"},
		{"HU", "06-1-234-5678", "+3612345678"},
		{"DE", "0151 12345678", "+4915112345678"},
		{"AT", "0664 1234567", "+436641234567"},
		{"GB", "07700 900123", "+447700900123"},
		{"FR", "06 12 34 56 78", "+33612345678"},
		{"IT", "06 1234 5678", "+390612345678"},
		{"IT", "333 123 4567", "+393331234567"},
		{"ES", "612 345 678", "+34612345678"},
		{"NL", "06 12345678", "+31612345678"},
		{"CH", "079 123 45 67", "+41791234567"},
		{"PL", "512 345 678", "+48512345678"},
		{"CZ", "601 123 456", "+420601123456"},
		{"US", "(212) 555-0100", "+12125550100"},
		{"US", "1 212 555 0100", "+12125550100"},
		{"CA", "416 555 0199", "+14165550199"},
		{"CN", "138 0013 8000", "+8613800138000"},
		{"CN", "010 1234 5678", "+861012345678"},
		{"JP", "090-1234-5678", "+819012345678"},
		// International numbers stay as they were, whatever the site's country.
		{"HU", "+49 151 12345678", "+4915112345678"},
		{"HU", "0049 151 12345678", "+4915112345678"},
		{"IT", "+36 30 123 4567", "+36301234567"},
	} {
		got, err := domain.NormalisePhoneIn(c.in, c.country)
		require.NoError(t, err, "%s %q", c.country, c.in)
		assert.Equal(t, c.want, got, "%s %q", c.country, c.in)
	}
}

// TestANationalNumberNeedsAKnownCountry: without the site's country (or one whose dialling plan
// is not known) a national number is refused with a message asking for the country code, and
// a malformed one is refused in any country.
func TestANationalNumberNeedsAKnownCountry(t *testing.T) {
	for _, c := range []struct{ country, in, says string }{
		{"", "06 30 123 4567", "country code"},
		{"BR", "11 91234 5678", "country code"},
		{"HU", "06 30 12", "8 to 15 digits"},
		{"HU", "06", "not a number of HU"},
		{"DE", "00", "8 to 15 digits"},
		{"HU", "01 234 5678", "not a number of HU"},
		{"HU", "06 30 abc", "only digits"},
		{"HU", "", "8 to 15 digits"},
	} {
		_, err := domain.NormalisePhoneIn(c.in, c.country)
		require.True(t, errors.Is(err, domain.ErrInvalid), "%s %q: %v", c.country, c.in, err)
		assert.Contains(t, err.Error(), c.says, "%s %q", c.country, c.in)
		assert.Contains(t, err.Error(), ": phone ", "the message names the field")
	}
}

func TestCountriesAreISOCodes(t *testing.T) {
	for _, ok := range []string{"", "HU", "BR"} {
		assert.NoError(t, domain.ValidateCountry("country", ok), ok)
	}
	for _, bad := range []string{"hu", "HUN", "H", "36", "H1"} {
		assert.True(t, errors.Is(domain.ValidateCountry("country", bad), domain.ErrInvalid), bad)
	}
}
