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

// TestAnAmendedAccountBookingCountsItsDifferenceOnTheDayItWasApplied: a channel's booking
// confirmed on its account counts its price when confirmed; an amendment applied after counts
// its difference then, so the confirmation's amount does not change behind finance's back. An
// amendment of the hold before it was confirmed is in the price confirmed. A booking confirmed
// by staff without money, amended the same way, moved no money and has no item.
func TestAnAmendedAccountBookingCountsItsDifferenceOnTheDayItWasApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	onAccount := func(customer string) domain.Booking {
		b, err := d.Store.Reserve(ctx, channelHold(customer, "A", "agent-a", nights(soon, 2), 1))
		require.NoError(t, err)
		return b
	}

	later := onAccount("g1")
	_, err := d.Store.Confirm(ctx, later.ID, nil) // on the channel's account
	require.NoError(t, err)
	a, _ := amend(t, d, amendParams(later, "k1", domain.Change{CheckOut: soonStay.CheckOut}))
	require.Equal(t, domain.AmendmentApplied, a.Status, "no provider payment: nothing waits for a balance")

	before := onAccount("g2")
	a, _ = amend(t, d, amendParams(before, "k1", domain.Change{Quantity: 2}))
	require.Equal(t, domain.AmendmentApplied, a.Status)
	_, err = d.Store.Confirm(ctx, before.ID, nil)
	require.NoError(t, err)

	desk := hold(t, d, "g3", nights(soon, 2), 1)
	_, err = d.Store.Confirm(ctx, desk.ID, nil) // by staff, without money
	require.NoError(t, err)
	a, _ = amend(t, d, amendParams(desk, "k1", domain.Change{CheckOut: soonStay.CheckOut}))
	require.Equal(t, domain.AmendmentApplied, a.Status)

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
	assert.NotContains(t, amounts, desk.ID, "confirmed by staff without money: none moved")
	assert.Equal(t, []db.ReportTotal{{Channel: db.ChannelAccount, ChannelID: "A", Method: db.MethodAccount, Currency: "EUR",
		Payments: 3, Paid: 70000, Net: 70000}}, r.Totals)
}

// TestAnAccountBookingsReportedSaleDoesNotChangeWhenItIsAmendedLater: a channel's booking
// confirmed on its account counts its price on the day it was confirmed. An amendment afterwards
// (applied at once: no provider payment) must not rewrite what that day's report said was sold;
// the difference belongs to the amendment.
func TestAnAccountBookingsReportedSaleDoesNotChangeWhenItIsAmendedLater(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	splitStock(t, d)
	b, err := d.Store.Reserve(ctx, channelHold("g1", "A", "agent-a", nights(soon, 2), 1))
	require.NoError(t, err)
	b, err = d.Store.Confirm(ctx, b.ID, nil) // on the channel's account
	require.NoError(t, err)
	day := domain.Span{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour)}
	before, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, day)
	require.NoError(t, err)
	require.Len(t, before.Items, 1)
	require.Equal(t, b.Price.Total, before.Items[0].Amount)

	a, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: soonStay.CheckOut}))
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	after, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, day)
	require.NoError(t, err)

	require.NotEmpty(t, after.Items)
	assert.Equal(t, before.Items[0], after.Items[0], "the confirmation sold %d, whatever the booking costs later", b.Price.Total)
}
