package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAHeldDepositBookingMovedEarlierOwesItsBalanceByItsNewArrival: a deposit plan's hold
// amended to a stay 20 days earlier owes its balance 7 days before its new check-in, not 7 days
// before the old one (which falls after the new stay has ended).
func TestAHeldDepositBookingMovedEarlierOwesItsBalanceByItsNewArrival(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	earlier := nights(dec10.AddDays(-20), 3)
	d.SetInventory(t, "h1", "double", earlier.CheckIn, dec13, 3)
	depositPlan(t, d)
	b := depositHold(t, d, "c1", stay3)
	_, b = amend(t, d, amendParams(b, "earlier", domain.Change{CheckIn: earlier.CheckIn, CheckOut: earlier.CheckOut}))
	require.Equal(t, domain.StatusHold, b.Status)
	require.Equal(t, earlier.CheckIn, b.CheckIn)
	assert.Equal(t, earlier.CheckIn.AddDays(-7).In(time.UTC), b.BalanceDueAt,
		"the balance date follows the stay (it stayed at %s, after the new check-out %s)", b.BalanceDueAt, earlier.CheckOut)

	b, err := d.Store.Confirm(ctx, b.ID, ptr(captured(t, d, b, "pi_deposit", b.Deposit)))
	require.NoError(t, err)
	assert.True(t, b.BalanceDueAt.Before(b.CheckIn.In(time.UTC)), "a confirmed booking owes its balance before it arrives")
}
