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

// TestAnAmendedDeskBookingCountsItsDifferenceOnTheDayItWasApplied: a booking paid at the desk
// counts its price when confirmed; an amendment applied after counts its difference then, so
// the confirmation's amount does not change behind finance's back. An amendment of the hold before
// the desk confirmed it is in the price confirmed.
func TestAnAmendedDeskBookingCountsItsDifferenceOnTheDayItWasApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)

	later := hold(t, d, "g1", nights(dec10, 2), 1)
	_, err := d.Store.Confirm(ctx, later.ID, nil) // paid at the desk
	require.NoError(t, err)
	a, _ := amend(t, d, amendParams(later, "k1", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentApplied, a.Status, "no provider payment: nothing waits for a balance")

	before := hold(t, d, "g2", nights(dec10, 2), 1)
	a, _ = amend(t, d, amendParams(before, "k1", domain.Change{Quantity: 2}))
	require.Equal(t, domain.AmendmentApplied, a.Status)
	_, err = d.Store.Confirm(ctx, before.ID, nil)
	require.NoError(t, err)

	now := time.Now().UTC()
	day := domain.Span{Start: now.Truncate(24 * time.Hour), End: now.Truncate(24 * time.Hour).Add(24 * time.Hour)}
	r, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, day)
	require.NoError(t, err)
	amounts := map[string][]int64{}
	for _, it := range r.Items {
		amounts[it.BookingID] = append(amounts[it.BookingID], it.Amount)
	}
	assert.Equal(t, []int64{20000, 10000}, amounts[later.ID], "confirmed at 2 nights, then a night more")
	assert.Equal(t, []int64{40000}, amounts[before.ID], "confirmed at its amended price")
	require.Len(t, r.Totals, 1)
	assert.Equal(t, db.ReportTotal{Channel: "desk", Currency: "EUR", Payments: 3, Paid: 70000, Net: 70000}, r.Totals[0])
}
