package cache_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestPricesAreCachedBesideTheirUnits: a unit's price is relayed and read through with its
// unit, by the same versions; a unit whose price is not cached (written by a relay of the
// previous release) is a miss for a priced read, and still a hit for the gate's read.
func TestPricesAreCachedBesideTheirUnits(t *testing.T) {
	c := testsuite.NewCache(t, testsuite.RedisURL())
	ctx := context.Background()
	night := db.UnitKey{ResourceID: 9, Start: time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)}
	date := domain.DateOf(night.Start, time.UTC)
	priced := func() (db.CachedUnit, bool) {
		t.Helper()
		states, found, err := c.GetPriced(ctx, []db.UnitKey{night})
		require.NoError(t, err)
		if !found {
			return db.CachedUnit{}, false
		}
		return states[0], true
	}

	// A unit written alone, as the previous release's relay does.
	require.NoError(t, c.Redis.Set(ctx, c.Prefix+"bf:u:9:"+strconv.FormatInt(night.Start.Unix(), 10), "3|4|0", time.Minute).Err())
	_, found := priced()
	assert.False(t, found, "no price cached: the search reads the database")
	_, found, err := c.Get(ctx, []db.UnitKey{night})
	require.NoError(t, err)
	assert.True(t, found, "the gate reads the unit alone")

	rates := domain.NightRates{Date: date, Rate: 12345, Currency: "EUR",
		Plans: map[string]domain.Money{"CORP": {Amount: 9999, Currency: "EUR"}, "NR-2": {Amount: 0, Currency: "EUR"}}}
	require.NoError(t, c.Fill(ctx, []db.CachedUnit{{UnitKey: night, Left: 4, Prices: rates}}))
	st, found := priced()
	require.True(t, found)
	assert.Equal(t, rates, st.Prices, "read through beside the relayed unit")

	require.NoError(t, c.Apply(ctx, []db.CachedUnit{{UnitKey: night, Left: 2, Version: 7,
		Prices: domain.NightRates{Date: date, Free: true, Currency: "EUR"}}}))
	st, _ = priced()
	assert.Equal(t, domain.NightRates{Date: date, Free: true, Currency: "EUR"}, st.Prices, "a relayed change replaces it")
	require.NoError(t, c.Apply(ctx, []db.CachedUnit{{UnitKey: night, Left: 1, Version: 6, Prices: rates}}))
	st, _ = priced()
	assert.Equal(t, 2, st.Left)
	assert.True(t, st.Prices.Free, "an older version, arriving late, is ignored")
}

// TestNightsOfTheSamePlanRatesReadAsTheirOwn: a priced read decodes each night's plan rates once
// per run of nights carrying the same (they share a map); a night of other rates, or of none,
// between them reads as its own.
func TestNightsOfTheSamePlanRatesReadAsTheirOwn(t *testing.T) {
	c := testsuite.NewCache(t, testsuite.RedisURL())
	ctx := context.Background()
	corp := map[string]domain.Money{"CORP": {Amount: 9999, Currency: "EUR"}, "NR": {Amount: 8000, Currency: "EUR"}}
	other := map[string]domain.Money{"CORP": {Amount: 9000, Currency: "EUR"}}
	var units []db.CachedUnit
	var keys []db.UnitKey
	for i, plans := range []map[string]domain.Money{corp, corp, other, nil, corp, nil} {
		k := db.UnitKey{ResourceID: 11, Start: time.Date(2031, 3, 1+i, 0, 0, 0, 0, time.UTC)}
		units = append(units, db.CachedUnit{UnitKey: k, Left: 3, Prices: domain.NightRates{Date: domain.DateOf(k.Start, time.UTC),
			Rate: 10000, Currency: "EUR", Plans: plans}})
		keys = append(keys, k)
	}
	require.NoError(t, c.Fill(ctx, units))
	states, found, err := c.GetPriced(ctx, keys)
	require.NoError(t, err)
	require.True(t, found)
	for i, st := range states {
		assert.Equal(t, units[i].Prices, st.Prices, "night %d", i)
	}
}
