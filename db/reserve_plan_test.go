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

// TestAPlansOwnRatesSellNoNightWithoutTheRoomTypesRate (review of issue 35): a root plan with
// rates of its own on nights without the room type's own rate. The hold under it was refused by
// the stock check ("no rate is set for the night") while the plan's prices, which search offers,
// priced every night: search and hold disagreed. Now the plan's prices say the night is not on
// sale, and the hold is refused, as before.
func TestAPlansOwnRatesSellNoNightWithoutTheRoomTypesRate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	// The nights are on sale, without a rate of the room type's own.
	require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double",
		From: dec10, To: dec13, TotalRooms: 5}))
	_, err := d.Store.PutRatePlan(ctx, flexible("PKG", ""))
	require.NoError(t, err)
	n, err := d.Store.SetPlanRates(ctx, "h1", "PKG", "double", dec10, dec13, domain.Money{Amount: 9000, Currency: "EUR"})
	require.NoError(t, err)
	require.Equal(t, 3, n, "the plan's rates are set on every night")
	nights, err := d.Store.PlanNightlyPrices(ctx, "h1", "PKG", "double", dec10, dec13)
	require.NoError(t, err)
	unit, why := domain.StayPrice(nights)
	assert.Nil(t, unit, "the plan does not price the stay, so search does not offer it as sellable")
	assert.Contains(t, why, "not on sale")

	p := holdParams("c1", "k", stay3, 1)
	p.Request.RatePlan = "PKG"
	b, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusRejected, b.Status, "the hold is refused as search says")
	assert.Contains(t, b.Refusal, "not on sale")
}

// TestAnAmendmentPricesAddedRoomsByTheBookingsPlan: a booking of a plan derived from BAR at 10%
// off keeps it when amended: a night added is priced at the plan's price (9000), not BAR's
// (10000); a move to a room type the plan does not sell is refused, nothing taken.
func TestAnAmendmentPricesAddedRoomsByTheBookingsPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13.AddDays(1), 3)
	d.SetInventory(t, "h1", "suite", dec10, dec13.AddDays(1), 3)
	plan := flexible("FLEX", domain.DefaultRatePlan)
	plan.RoomTypes = []string{"double"}
	_, err := d.Store.PutRatePlan(ctx, plan)
	require.NoError(t, err)
	p := holdParams("c1", "k", stay3, 1)
	p.Request.RatePlan = "FLEX"
	b, err := d.Store.Reserve(ctx, p)
	require.NoError(t, err)
	require.Equal(t, domain.StatusHold, b.Status, b.Refusal)
	require.Equal(t, int64(3*9000), b.Price.Total)

	a, after := amend(t, d, amendParams(b, "longer", domain.Change{CheckOut: dec13.AddDays(1)}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.Equal(t, int64(4*9000), after.Price.Total, "the added night at the plan's price")
	assert.Equal(t, "FLEX", after.RatePlan)

	a, _ = amend(t, d, amendParams(after, "suite", domain.Change{RoomTypeID: "suite"}))
	assert.Equal(t, domain.AmendmentRefused, a.Status)
	assert.Contains(t, a.Reason, "does not sell room type suite")
	d.AssertInventoryMatchesBookings(t)
}
