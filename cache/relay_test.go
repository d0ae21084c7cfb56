package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestARelayWithoutACacheLeavesTheOutboxToOneWithIt: in a fleet where one worker has no
// REDIS_URL, its relay must not take the changes the other's relay applies. Otherwise Redis
// keeps the old count while the other relay vouches for it, and the gate refuses rooms on sale.
// It deletes only rows older than the cache's life.
func TestARelayWithoutACacheLeavesTheOutboxToOneWithIt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	c := testsuite.NewCache(t, testsuite.RedisURL())
	ctx := context.Background()
	night := domain.NewDate(2031, time.January, 1)
	d.SetInventory(t, "h1", "double", night, night.AddDays(1), 4)
	applying := &cache.Relay{Store: d.Store, Pool: d.Pool, Cache: c}
	bare := &cache.Relay{Store: d.Store, Pool: d.Pool}
	_, err := applying.Once(ctx)
	require.NoError(t, err)
	terms, err := d.Store.HotelTerms(ctx, "h1")
	require.NoError(t, err)
	key := db.UnitKey{ResourceID: terms.Rooms[0].ResourceID, Start: night.Time()}
	left := func() int {
		t.Helper()
		states, found, err := c.Get(ctx, []db.UnitKey{key})
		require.NoError(t, err)
		require.True(t, found)
		return states[0].Left
	}
	require.Equal(t, 4, left())

	d.SetInventory(t, "h1", "double", night, night.AddDays(1), 0) // sold off elsewhere
	d.SetInventory(t, "h1", "double", night, night.AddDays(1), 2) // and 2 back on sale
	n, err := bare.Once(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "a relay without a cache leaves young rows")
	_, err = applying.Once(ctx)
	require.NoError(t, err)
	alive, err := c.RelayAlive(ctx)
	require.NoError(t, err)
	require.True(t, alive, "the cache is vouched for")
	assert.Equal(t, 2, left(), "the relay with the cache applied the change")

	// Rows older than the cache's life go: no cached value from before them is left.
	d.SetInventory(t, "h1", "double", night, night.AddDays(1), 3)
	_, err = d.Pool.Exec(ctx, `UPDATE availability_outbox SET created_at = now() - $1::interval`,
		(cache.UnappliedKept + time.Second).String())
	require.NoError(t, err)
	d.SetInventory(t, "h1", "double", night, night.AddDays(1), 1)
	n, err = bare.Once(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the old row is deleted, the young one kept")
	backlog, _, err := d.Store.OutboxBacklog(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, backlog)
}
