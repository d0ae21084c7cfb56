package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestALatePaymentIsJudgedByTheSaleRulesInForce: the last room is held, the hold expires, an
// admin stops sales over its nights, and the payment arrives late: the nights are not taken
// again (the payment is refunded). Once the stop-sell ends, the same late payment retakes them.
func TestALatePaymentIsJudgedByTheSaleRulesInForce(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 1)
	held, err := d.Store.Reserve(ctx, holdParams("g1", "k1", soonStay, 1))
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, held.Status)
	_, err = d.Store.Release(ctx, held.ID, domain.StatusExpired)
	require.NoError(t, err)
	stop := createRule(t, d, domain.SaleRule{Kind: domain.RuleStopSell, HotelID: "h1",
		From: soon.AddDays(1), To: soon.AddDays(2), Reason: "maintenance"})
	refused, err := d.Store.Reserve(ctx, holdParams("g2", "k2", soonStay, 1))
	require.NoError(t, err)
	require.Equal(t, domain.StatusRejected, refused.Status, "a new hold is refused on those nights")

	pay := domain.Payment{ID: "pi_late", Amount: held.Price.Total, Currency: held.Price.Currency}
	_, err = d.Store.Retake(ctx, held.ID, pay)
	require.ErrorIs(t, err, domain.ErrUnavailable)
	assert.Contains(t, err.Error(), "stop-sell (maintenance)")
	b, err := d.Store.GetBooking(ctx, held.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusExpired, b.Status, "nothing changed")
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", soonStay))

	require.NoError(t, d.Store.EndSaleRule(ctx, stop.ID))
	b, err = d.Store.Retake(ctx, held.ID, pay)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusConfirmed, b.Status, "with the rule ended, the late payment takes the nights again")
	d.AssertInventoryMatchesBookings(t)
}

// TestARetakeWaitsForARuleBeingWritten: a stop-sell is being written (its transaction holds the
// hotel's sale lock) when the late payment arrives. The retake waits for it and is refused once
// it commits; it never confirms the nights under a rule answered before it.
func TestARetakeWaitsForARuleBeingWritten(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 1)
	held, err := d.Store.Reserve(ctx, holdParams("g1", "k1", soonStay, 1))
	require.NoError(t, err)
	_, err = d.Store.Release(ctx, held.ID, domain.StatusExpired)
	require.NoError(t, err)

	tx, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	require.NoError(t, db.LockSaleRules(ctx, tx, "h1"))
	_, err = tx.Exec(ctx, `INSERT INTO sale_rules (kind, hotel_id, from_date, to_date, reason, set_by)
		VALUES ('stop_sell', 'h1', $1, $2, 'full', 'tester')`, soon.Time(), soonStay.CheckOut.Time())
	require.NoError(t, err)

	retaken := make(chan error, 1)
	go func() {
		_, err := d.Store.Retake(ctx, held.ID, domain.Payment{ID: "pi_late", Amount: held.Price.Total, Currency: held.Price.Currency})
		retaken <- err
	}()
	waitForLockWaiters(t, d, 1)
	require.NoError(t, tx.Commit(ctx)) // the stop-sell is answered
	require.ErrorIs(t, <-retaken, domain.ErrUnavailable, "the retake judged the rule committed while it waited")
	assert.Equal(t, []int{0, 0, 0}, d.Reserved(t, "h1", "double", soonStay))
	d.AssertInventoryMatchesBookings(t)
}
