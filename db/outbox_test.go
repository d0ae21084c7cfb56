package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
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
