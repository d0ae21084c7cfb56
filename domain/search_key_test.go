package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bookflow/bookflow/domain"
)

func TestCustomerSearchKeysAreStableKeyedAndRevealNothing(t *testing.T) {
	key := []byte("a-booking-id-key-of-32-bytes-or-more")
	a := domain.CustomerSearchKey(key, "walk-in:+4915112345678")
	assert.Equal(t, a, domain.CustomerSearchKey(key, "walk-in:+4915112345678"), "stable: operators search by it")
	assert.Regexp(t, `^cus_[0-9a-f]{32}$`, a)
	assert.NotContains(t, a, "4915112345678")
	assert.NotEqual(t, a, domain.CustomerSearchKey(key, "walk-in:+4915112345679"))
	assert.NotEqual(t, a, domain.CustomerSearchKey([]byte("another-deployment-key-of-32-bytes"), "walk-in:+4915112345678"),
		"keyed: another key gives another hash, so a phone number cannot be guessed from it without the key")
	// Not the booking id's hash under the same key: the search key has a key of its own.
	assert.False(t, strings.HasSuffix(domain.BookingID(key, "walk-in:+4915112345678", "", ""), a[len("cus_"):]))
}
