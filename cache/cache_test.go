package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// TestRelayAppliesOnlyNewerVersions: states relayed twice, or out of order, leave the newest;
// a value read through on a miss never replaces a relayed one, and any relayed one replaces it.
func TestRelayAppliesOnlyNewerVersions(t *testing.T) {
	c := testsuite.NewCache(t, testsuite.RedisURL())
	ctx := context.Background()
	night := db.UnitKey{ResourceID: 7, Start: time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)}
	other := db.UnitKey{ResourceID: 7, Start: night.Start.AddDate(0, 0, 1)}
	get := func(k db.UnitKey) db.CachedUnit {
		t.Helper()
		states, found, err := c.Get(ctx, []db.UnitKey{k})
		require.NoError(t, err)
		require.True(t, found)
		return states[0]
	}

	require.NoError(t, c.Fill(ctx, []db.CachedUnit{{UnitKey: night, Left: 9}}))
	assert.Equal(t, 9, get(night).Left)
	require.NoError(t, c.Apply(ctx, []db.CachedUnit{{UnitKey: night, Left: 4, Version: 5}, {UnitKey: other, Left: 2, Version: 6, Split: true}}))
	assert.Equal(t, db.CachedUnit{UnitKey: night, Left: 4, Version: 5}, get(night), "a relayed change replaces a read-through value")
	require.NoError(t, c.Fill(ctx, []db.CachedUnit{{UnitKey: night, Left: 9}}))
	assert.Equal(t, 4, get(night).Left, "a read-through never replaces a relayed value")

	require.NoError(t, c.Apply(ctx, []db.CachedUnit{{UnitKey: night, Left: 7, Version: 3}}))
	assert.Equal(t, 4, get(night).Left, "an older version, arriving late, is ignored")
	require.NoError(t, c.Apply(ctx, []db.CachedUnit{{UnitKey: night, Left: 6, Version: 5}}))
	assert.Equal(t, 4, get(night).Left, "the same version again changes nothing")
	require.NoError(t, c.Apply(ctx, []db.CachedUnit{{UnitKey: night, Left: 1, Version: 8}}))
	assert.Equal(t, db.CachedUnit{UnitKey: night, Left: 1, Version: 8}, get(night))
	assert.True(t, get(other).Split)

	_, found, err := c.Get(ctx, []db.UnitKey{night, {ResourceID: 8, Start: night.Start}})
	require.NoError(t, err)
	assert.False(t, found, "one unit missing is a miss for the whole read")
}

// TestRacingHoldsAreCountedOnceAndFinish: admission counts each racing hold once, a
// finished one no longer, and (by its score) one whose process died only for racingTTL.
func TestRacingHoldsAreCountedOnceAndFinish(t *testing.T) {
	c := testsuite.NewCache(t, testsuite.RedisURL())
	ctx := context.Background()
	key := c.RacingKey(1, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, hold := range []string{"a", "b"} {
		ok, err := c.Race(ctx, key, hold, 2)
		require.NoError(t, err)
		assert.True(t, ok)
	}
	ok, err := c.Race(ctx, key, "c", 2)
	require.NoError(t, err)
	assert.False(t, ok, "two race already")
	c.Finish(ctx, key, "a")
	ok, err = c.Race(ctx, key, "c", 2)
	require.NoError(t, err)
	assert.True(t, ok, "a finished")
	// A hold that started long ago (its process died) no longer counts.
	require.NoError(t, c.Redis.ZAdd(ctx, key, redis.Z{Score: float64(time.Now().Add(-time.Minute).UnixMilli()), Member: "b"}).Err())
	ok, err = c.Race(ctx, key, "d", 2)
	require.NoError(t, err)
	assert.True(t, ok, "b's place was given up after 30 s")
}
