package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
)

// TestPlanRatesAreReadAsTheyAreWritten: the text of a night's plan rates (the cache's, and the
// database's string_agg, in any order) reads back as the rates; none is ""; a malformed text is
// an error.
func TestPlanRatesAreReadAsTheyAreWritten(t *testing.T) {
	rates := map[string]domain.Money{"CORP": {Amount: 9000, Currency: "EUR"}, "A.b-1_2": {Amount: -5, Currency: "USD"}}
	text := domain.PlanRatesText(rates)
	assert.Equal(t, "A.b-1_2=-5:USD,CORP=9000:EUR", text)
	read, err := domain.ParsePlanRates(text)
	require.NoError(t, err)
	assert.Equal(t, rates, read)
	read, err = domain.ParsePlanRates("CORP=9000:EUR,A.b-1_2=-5:USD")
	require.NoError(t, err)
	assert.Equal(t, rates, read, "in any order")
	assert.Empty(t, domain.PlanRatesText(nil))
	read, err = domain.ParsePlanRates("")
	assert.NoError(t, err)
	assert.Nil(t, read)
	for _, bad := range []string{"CORP", "CORP=9000", "CORP=x:EUR", "CORP=1:EUR,"} {
		_, err := domain.ParsePlanRates(bad)
		assert.Error(t, err, bad)
	}
}
