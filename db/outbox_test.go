package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestEveryInventoryChangeIsInTheOutbox: opening nights, a hold and its release each leave one
// row per night, drained once with the nights as they stand.
func TestEveryInventoryChangeIsInTheOutbox(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 4)
	b, err := d.Store.Reserve(ctx, holdParams("g", "k", stay3, 1))
	require.NoError(t, err)
	var got []db.CachedUnit
	n, err := d.Store.DrainOutbox(ctx, 100, func(states []db.CachedUnit) error { got = states; return nil })
	require.NoError(t, err)
	assert.Equal(t, 6, n, "3 nights opened, 3 taken")
	require.Len(t, got, 3, "one state per night")
	for _, st := range got {
		assert.Equal(t, 3, st.Left)
		assert.Positive(t, st.Version)
	}
	_, err = d.Store.Release(ctx, b.ID, "CANCELLED")
	require.NoError(t, err)
	n, err = d.Store.DrainOutbox(ctx, 100, func([]db.CachedUnit) error { return assert.AnError })
	assert.Error(t, err, "a failed apply keeps the rows")
	assert.Zero(t, n)
	n, err = d.Store.DrainOutbox(ctx, 100, func(states []db.CachedUnit) error { got = states; return nil })
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Equal(t, 4, got[0].Left)
}

// TestANightNotOnSaleHasNothingLeft: a night without an inventory row shows 0, in a search and
// in the cache's read-through, never as unlimited.
func TestANightNotOnSaleHasNothingLeft(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13.AddDays(-1), 4)
	avail, err := d.Store.Availability(ctx, "h1", "", stay3)
	require.NoError(t, err)
	require.Len(t, avail, 1)
	assert.Equal(t, 0, avail[0].Available)
	assert.Equal(t, 0, avail[0].Nights[2].Available)
	assert.False(t, avail[0].Nights[2].Unlimited)
	terms, err := d.Store.HotelTerms(ctx, "h1")
	require.NoError(t, err)
	rooms := terms.Rooms
	states, err := d.Store.UnitStates(ctx, []db.UnitKey{{ResourceID: rooms[0].ResourceID, Start: dec13.AddDays(-1).Time()},
		{ResourceID: rooms[0].ResourceID, Start: dec10.Time()}})
	require.NoError(t, err)
	assert.Equal(t, 0, states[0].Left, "in the keys' order: the missing night first")
	assert.Equal(t, 4, states[1].Left)
}

// The backlog the metrics report: how many changes wait, and the oldest's time.
func TestOutboxBacklogCountsWhatWaitsForTheRelay(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `DELETE FROM availability_outbox`)
	require.NoError(t, err)
	n, oldest, err := d.Store.OutboxBacklog(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.True(t, oldest.IsZero())

	from := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	d.SetInventory(t, "h1", "double", from, from.AddDays(3), 2) // three nights changed
	n, oldest, err = d.Store.OutboxBacklog(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 3, n)
	assert.WithinDuration(t, time.Now(), oldest, time.Minute)
}
