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

// stockOf is h1/double's stock view of the nights of stay, by night.
func stockOf(t *testing.T, d *testsuite.Database, stay domain.Stay) map[domain.Date]db.StockNightView {
	t.Helper()
	list, err := d.Store.HotelStock(context.Background(), "h1", stay.CheckIn, stay.CheckOut)
	require.NoError(t, err)
	out := map[domain.Date]db.StockNightView{}
	for _, n := range list {
		out[n.Date] = n
	}
	return out
}

// assertStockAddsUp checks that every night's total is what is sold, held, blocked and still
// available, and that the view agrees with the inventory's reserved count.
func assertStockAddsUp(t *testing.T, d *testsuite.Database, stay domain.Stay) {
	t.Helper()
	reserved := d.Reserved(t, "h1", "double", stay)
	for i := range stay.Nights() {
		n := stockOf(t, d, stay)[stay.CheckIn.AddDays(i)]
		assert.Equal(t, *n.Total, n.Sold+n.Held+n.BlockedRooms+n.Available, "night %s: %+v", n.Date, n)
		assert.Equal(t, reserved[i], n.Sold+n.Held, "night %s: the units taken are sold or held", n.Date)
	}
}

// While an amendment waits for its balance, the night it adds is off sale, held beside the
// booking's own: the stock view counts it held (and the booking's own nights sold), so each
// night's total is sold + held + blocked + available; once the balance is paid the night is sold.
func TestTheStockViewCountsANightAnAmendmentHoldsWhileItsBalanceIsDue(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	b := paidBooking(t, d, "g1", nights(dec10, 2), 1, 0)
	three := nights(dec10, 3)

	a, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	stock := stockOf(t, d, three)
	added := stock[dec12]
	assert.Equal(t, 0, added.Sold, "the added night is not sold until its balance is paid")
	assert.Equal(t, 1, added.Held, "the added night is held for the amendment")
	assert.Equal(t, 4, added.Available)
	for _, own := range []domain.Date{dec10, dec11} {
		assert.Equal(t, 1, stock[own].Sold, "the booking's own night %s stays sold", own)
		assert.Equal(t, 0, stock[own].Held, "night %s", own)
	}
	assertStockAddsUp(t, d, three)

	_, _, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"})
	require.NoError(t, err)
	paid := stockOf(t, d, three)[dec12]
	assert.Equal(t, 1, paid.Sold, "paid, the added night is the booking's and sold")
	assert.Equal(t, 0, paid.Held)
	assertStockAddsUp(t, d, three)
}

// A supplier's booking amended a night longer holds the added night here while the supplier is
// asked to confirm the new stay: the stock view counts it held, as it does a balance's.
func TestTheStockViewCountsANightAnAmendmentHoldsWhileItsSupplierIsAsked(t *testing.T) {
	t.Parallel()
	d, _, _ := waitingForSupplier(t)
	three := nights(dec10, 3)

	added := stockOf(t, d, three)[dec12]
	assert.Equal(t, 1, added.Held, "the added night is held for the amendment")
	assertStockAddsUp(t, d, three)
}
