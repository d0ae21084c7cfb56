package domain_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

func TestErasurePseudonymIsKeyedDeterministicAndDistinct(t *testing.T) {
	key := []byte("booking-id-key")
	p := domain.ErasurePseudonym(key, "cust-1")
	assert.Equal(t, p, domain.ErasurePseudonym(key, "cust-1"), "a second erasure finds the same pseudonym")
	assert.Regexp(t, `^erased:[0-9a-f]{32}$`, p)
	assert.NotEqual(t, p, domain.ErasurePseudonym(key, "cust-2"))
	assert.NotEqual(t, p, domain.ErasurePseudonym([]byte("another key"), "cust-1"))
	assert.NotContains(t, p, "cust-1")

	// The sub-key, not the booking-id key itself, keys the pseudonym.
	direct := hmac.New(sha256.New, key)
	direct.Write([]byte("cust-1"))
	assert.NotEqual(t, domain.ErasedPrefix+hex.EncodeToString(direct.Sum(nil)[:16]), p)
	sub := hmac.New(sha256.New, key)
	sub.Write([]byte("bookflow customer erasure v1"))
	mac := hmac.New(sha256.New, sub.Sum(nil))
	mac.Write([]byte("cust-1"))
	assert.Equal(t, domain.ErasedPrefix+hex.EncodeToString(mac.Sum(nil)[:16]), p)
}

func TestValidateErasure(t *testing.T) {
	require.NoError(t, domain.ValidateErasure("cust-1", "the customer asked by email"))
	require.NoError(t, domain.ValidateErasure("walk-in:+4915112345678", strings.Repeat("é", domain.MaxErasureReason)))
	for name, c := range map[string][2]string{
		"no reason":      {"cust-1", " "},
		"long reason":    {"cust-1", strings.Repeat("x", domain.MaxErasureReason+1)},
		"no customer":    {"", "asked"},
		"a pseudonym":    {domain.ErasurePseudonym([]byte("k"), "cust-1"), "asked"},
		"a long subject": {strings.Repeat("c", 256), "asked"},
	} {
		err := domain.ValidateErasure(c[0], c[1])
		assert.True(t, errors.Is(err, domain.ErrInvalid), "%s: %v", name, err)
	}
}

// The reason is kept with the erasure, out of its reach: one line that names nobody.
func TestAnErasureReasonMustNotNameTheCustomer(t *testing.T) {
	require.NoError(t, domain.ValidateErasure("Ann@Example.com", "erasure request of 2026-12-01, ticket 4711"))
	require.NoError(t, domain.ValidateErasure("47", "ticket 4711"), "an id too short to tell is not looked for")
	for name, c := range map[string][2]string{
		"the id":            {"cust-Ann", "asked by CUST-ann"},
		"an e-mail":         {"cust-1", "asked by ann.erasmus@example.com"},
		"the id, an e-mail": {"Ann@Example.com", "asked by ann@example.com"},
		"the phone":         {"walk-in:+4915112345678", "rang from 4915112345678"},
		"a new line":        {"cust-1", "asked\nby phone"},
		"a control char":    {"cust-1", "asked\x1b[31m"},
		"a bidi override":   {"cust-1", "asked \u202e4711"},
	} {
		err := domain.ValidateErasure(c[0], c[1])
		assert.True(t, errors.Is(err, domain.ErrInvalid), "%s: %v", name, err)
	}
}

// The customer's id and a walk-in's name are looked for as whole words, in any case, and a
// walk-in's phone number as a whole number: a word or number that merely contains one ("annual",
// a longer number) names nobody. A refusal says what
// kind of thing the reason holds, never the thing itself.
func TestAnErasureReasonNamesTheCustomerOnlyByAWholeWord(t *testing.T) {
	const walkIn = "walk-in:+4915112345678"
	for _, c := range [][3]string{
		{"ann", "annual clean-up of walk-in guests, ticket SUP-7"},
		{"cust-42", "ticket cust-421"},
		{walkIn, "ticket 49151123456789"},
	} {
		assert.NoError(t, domain.ValidateErasure(c[0], c[1]), "%s in %q", c[0], c[1])
	}
	assert.NoError(t, domain.ValidateErasureReasonName("annual clean-up, ticket SUP-7", "Ann"))
	assert.NoError(t, domain.ValidateErasureReasonName("asked", ""), "no name (one too short to look for)")

	for _, c := range []struct{ id, reason, named, what string }{
		{"ann", "asked by ANN, ticket 7", "ann", "the customer's id"},
		{"cust-Ann", "asked by CUST-ann.", "cust-ann", "the customer's id"},
		{walkIn, "rang from +4915112345678", "4915112345678", "a phone number"},
		{walkIn, "4915112345678 rang", "4915112345678", "a phone number"},
		{walkIn, "tel4915112345678", "4915112345678", "a phone number"},
		{"cust-1", "asked by ann.erasmus@example.com", "erasmus", "an e-mail address"},
	} {
		err := domain.ValidateErasure(c.id, c.reason)
		require.ErrorIs(t, err, domain.ErrReasonNamesCustomer, "%s in %q", c.id, c.reason)
		assert.ErrorIs(t, err, domain.ErrInvalid)
		assert.Contains(t, err.Error(), "holds "+c.what)
		assert.NotContains(t, strings.ToLower(err.Error()), c.named, "the refusal repeats what it refuses")
	}
	for _, reason := range []string{"asked by ann", "ANN rang", "Zoë-Ann's request", "(ann)"} {
		err := domain.ValidateErasureReasonName(reason, "Ann")
		require.ErrorIs(t, err, domain.ErrReasonNamesCustomer, reason)
		assert.Contains(t, err.Error(), "holds the guest's name")
		assert.NotContains(t, strings.ToLower(err.Error()), "ann ", reason)
	}
	require.ErrorIs(t, domain.ValidateErasureReasonName("zelda walker asked", "Zelda Walker"), domain.ErrReasonNamesCustomer)
}
