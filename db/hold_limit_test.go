package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestActiveHoldLimitHoldsUnderARace: twenty concurrent holds of one customer, each with its own
// key, against a limit of five: exactly five are held and the others leave nothing behind.
func TestActiveHoldLimitHoldsUnderARace(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 100)
	ctx := context.Background()

	errs := make([]error, 20)
	testsuite.Race(20, func(i int) {
		p := holdParams("hoarder", fmt.Sprintf("k%d", i), stay3, 1)
		p.MaxActiveHolds = 5
		_, errs[i] = d.Store.Reserve(ctx, p)
	})
	refused := 0
	for _, err := range errs {
		if errors.Is(err, domain.ErrTooManyHolds) {
			refused++
		} else {
			require.NoError(t, err)
		}
	}
	assert.Equal(t, 15, refused)
	assert.Equal(t, []int{5, 5, 5}, d.Reserved(t, "h1", "double", stay3), "nothing was reserved for a refused hold")
	var rows int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM bookings`).Scan(&rows))
	assert.Equal(t, 5, rows, "a refused hold writes no booking")
	d.AssertInventoryMatchesBookings(t)
}

// TestCountThenReserveExceedsTheHoldLimit is the control for the test above: the same race
// with the limit checked in Go before reserving (what the API's early refusal does) lets more
// than five through. The check inside the reservation transaction is what holds the line.
func TestCountThenReserveExceedsTheHoldLimit(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 100)
	ctx := context.Background()

	testsuite.Race(20, func(i int) {
		p := holdParams("hoarder", fmt.Sprintf("k%d", i), stay3, 1)
		if n, _, err := d.Store.ActiveHolds(ctx, "hoarder", p.BookingID); err == nil && n < 5 {
			_, _ = d.Store.Reserve(ctx, p)
		}
	})
	n, _, err := d.Store.ActiveHolds(ctx, "hoarder", "")
	require.NoError(t, err)
	assert.Greater(t, n, 5, "a check outside the transaction must let the race through, or this control proves nothing")
}

func TestActiveHoldLimitCountsOnlyTheCustomersOwnLiveHolds(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 100)
	ctx := context.Background()
	limited := func(key string) error {
		p := holdParams("guest", key, stay3, 1)
		p.MaxActiveHolds = 2
		_, err := d.Store.Reserve(ctx, p)
		return err
	}

	// A hold staff made for the guest does not count against the guest.
	desk := holdParams("guest", "desk-1", stay3, 1)
	desk.CreatedBy, desk.BookingID = "desk-7", domain.BookingID(idKey, "guest", "desk-7", "desk-1")
	_, err := d.Store.Reserve(ctx, desk)
	require.NoError(t, err)
	// An expired hold does not count either.
	expired := holdParams("guest", "old", stay3, 1)
	expired.HoldTTL = time.Microsecond
	_, err = d.Store.Reserve(ctx, expired)
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond)

	require.NoError(t, limited("k1"))
	require.NoError(t, limited("k2"))
	assert.ErrorIs(t, limited("k3"), domain.ErrTooManyHolds)
	assert.NoError(t, limited("k2"), "a retry of a hold already counted is not refused")

	n, first, err := d.Store.ActiveHolds(ctx, "guest", "")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.WithinDuration(t, time.Now().Add(10*time.Minute), first, time.Minute)
	d.AssertInventoryMatchesBookings(t)
}
