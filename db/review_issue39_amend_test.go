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

// TestAPartlyPaidStayShortenedOwesItsNewPrice (review of issue 39): a desk deposit of 50.00
// confirms a three-night hold (300.00); the stay is then shortened to one night by amendment.
// The price falls to the night kept (100.00), nothing goes back (the deposit is below it), and
// 50.00 is due: what the guest pays in all is the one night. (An early departure of the same
// stay does not do this: TestAPartlyPaidEarlyDepartureOwesOnlyTheNightsStayed.)
func TestAPartlyPaidStayShortenedOwesItsNewPrice(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 2)
	b := deskDeposit(t, d, hold(t, d, "c-short", stay3, 1), 5000)
	a, got := amend(t, d, amendParams(b, "short", domain.Change{CheckOut: dec11}))
	require.Equal(t, domain.AmendmentApplied, a.Status, "%+v", a)
	assert.Zero(t, a.Refund, "the deposit is below the new price: nothing goes back")
	assert.Equal(t, int64(10000), got.Price.Total)
	m, err := d.Store.BookingMoneySummary(ctx, got)
	require.NoError(t, err)
	assert.Equal(t, int64(5000), m.Due, "the rest of the night kept: %+v", m)
	assert.Equal(t, int64(10000), m.Paid-m.Refunded-m.Refunding+m.Due)
	assert.Equal(t, []int{1, 0, 0}, d.Reserved(t, "h1", "double", stay3))
}

// deskDeposit is hold b after the desk took amount of its price in cash, which confirms it.
func deskDeposit(t *testing.T, d *testsuite.Database, b domain.Booking, amount int64) domain.Booking {
	t.Helper()
	b, err := d.Store.TakeDeskPayment(context.Background(), db.DeskPayment{BookingID: b.ID, Key: "deposit", Amount: amount,
		Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	require.Equal(t, domain.StatusConfirmed, b.Status)
	return b
}
