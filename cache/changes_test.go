package cache_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/cache"
	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestChangesSeesEveryCommitWithinMilliseconds: each transaction that changes inventory moves
// the generation on once its commit is notified; it logs how long that took (the staleness of
// the gate's sold-out memo).
func TestChangesSeesEveryCommitWithinMilliseconds(t *testing.T) {
	d := testsuite.NewDatabase(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	c := &cache.Changes{Pool: d.Pool}
	_, ok := c.Generation()
	assert.False(t, ok, "not listening yet: nothing can be vouched for")
	go c.Run(ctx)
	require.Eventually(t, func() bool { _, ok := c.Generation(); return ok }, 10*time.Second, time.Millisecond)

	day := domain.NewDate(2031, 3, 1)
	d.SetInventory(t, "h1", "double", day, day.AddDays(1), 50)
	var lags []time.Duration
	for i := range 40 {
		before, _ := c.Generation()
		customer := fmt.Sprintf("c%d", i)
		p := db.ReserveParams{BookingID: fmt.Sprintf("b%d", i), IdempotencyKey: "k", CreatedBy: customer, HoldTTL: time.Minute,
			Request: domain.HoldRequest{CustomerID: customer, HotelID: "h1", RoomTypeID: "double",
				Stay: domain.Stay{CheckIn: day, CheckOut: day.AddDays(1)}, Quantity: 1}}
		_, err := d.Store.Reserve(ctx, p)
		require.NoError(t, err)
		committed := time.Now()
		require.Eventually(t, func() bool { g, _ := c.Generation(); return g > before }, 5*time.Second, 50*time.Microsecond)
		lags = append(lags, time.Since(committed))
	}
	slices.Sort(lags)
	t.Logf("commit to generation: p50 %s, p99 %s, max %s", lags[len(lags)/2], lags[len(lags)*99/100], lags[len(lags)-1])

	stop()
	require.Eventually(t, func() bool { _, ok := c.Generation(); return !ok }, 5*time.Second, time.Millisecond,
		"stopped listening: nothing vouched for")
}
