package db_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAReopeningAndTheWaitersOwnOrderForTheSlotDoNotDeadlock: the customer waiting for
// a slot orders it herself while units are reopened. Her order's booking row is in the slot's
// one-order-per-customer index and she waits for the units; the reopening holds the units and
// its offer's INSERT ... ON CONFLICT DO NOTHING waits for her row's transaction. The venue's row
// held FOR UPDATE (as PutVenue holds it) only widens the window between her insert and her
// unit lock, which opens by itself whenever her insert lands while the reopening holds the units.
func TestAReopeningAndTheWaitersOwnOrderForTheSlotDoNotDeadlock(t *testing.T) {
	t.Parallel()
	d := openVenue(t)
	ctx := context.Background()
	closure := db.Closure{VenueID: "v1", ResourceID: "lane-1", From: at(8), To: at(9), Reason: "cleaning", By: "staff"}
	_, err := d.Store.CloseUnits(ctx, closure)
	require.NoError(t, err)
	joinLaneWaitlist(t, d, "swimmer", 8, 2)

	venue, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer venue.Rollback(ctx) //nolint:errcheck
	_, err = venue.Exec(ctx, `SELECT 1 FROM venues WHERE id = 'v1' FOR UPDATE`)
	require.NoError(t, err)

	var wg sync.WaitGroup
	var orderErr, reopenErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, orderErr = d.Store.ReserveOrder(ctx, order("swimmer", "own", slotLine("lane-1", 8, 2)))
	}()
	waitForLockWait(t, d, "%INSERT INTO bookings%")
	go func() {
		defer wg.Done()
		_, reopenErr = d.Store.ReopenUnits(ctx, closure)
	}()
	review36bWaiters(t, d, "%INSERT INTO bookings%", 2) // her order and the offer's
	require.NoError(t, venue.Commit(ctx))
	wg.Wait()

	assert.NoError(t, orderErr, "the customer's own order")
	assert.NoError(t, reopenErr, "the reopening")
	d.AssertInventoryMatchesBookings(t)
}

// review36bWaiters waits until n statements like like wait for a lock.
func review36bWaiters(t *testing.T, d *testsuite.Database, like string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var got int
		require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`, like).Scan(&got))
		if got >= n {
			return
		}
	}
	t.Fatalf("fewer than %d statements like %q wait for a lock", n, like)
}
