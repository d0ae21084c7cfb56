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

// Tests from the adversarial review of amendments: each states a rule the code breaks today.

// recordPayment records a succeeded provider payment as its webhook would.
func recordPayment(t *testing.T, d *testsuite.Database, bookingID, id string, amount int64) {
	t.Helper()
	_, err := d.Store.RecordPaymentEvent(context.Background(), domain.PaymentEvent{EventID: "evt_" + id,
		Type: "payment_intent.succeeded", BookingID: bookingID, PaymentID: id, Succeeded: true, Amount: amount, Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
}

// TestASettledBalancePaymentIsNotReportedAsUnmatched: a balance payment an amendment took is kept
// by the booking (PaymentAccountedFor says so); the invariant checker must not report it as money
// kept without a booking.
func TestASettledBalancePaymentIsNotReportedAsUnmatched(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	b := paidBooking(t, d, "g1", nights(dec10, 2), 1, 0)
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	a, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec13}))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	recordPayment(t, d, b.ID, "pi_balance", a.Difference)
	_, _, err := d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"})
	require.NoError(t, err)
	accounted, err := d.Store.PaymentAccountedFor(ctx, "pi_balance")
	require.NoError(t, err)
	require.True(t, accounted)
	d.AssertMoneyBalances(t)

	time.Sleep(10 * time.Millisecond) // UnmatchedPayments counts payments created before now()
	findings, err := d.Store.UnmatchedPayments(ctx, 0)
	require.NoError(t, err)
	assert.Empty(t, findings, "the balance payment is kept by the booking it amended")
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

// TestNightsAnAmendmentKeepsKeepTheirSnapshotPriceToTheCent: two rooms at 100.50 with 33% off a
// stay of three nights or more cost 134.67 a night (not a multiple of two rooms). Extending the
// stay by a night keeps the three nights it had: each must keep its 134.67, not be re-priced as
// two rooms at 67.33 (stayPrice divides a night's amount by the quantity and multiplies back).
func TestNightsAnAmendmentKeepsKeepTheirSnapshotPriceToTheCent(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	require.NoError(t, d.Store.SetInventory(ctx, db.SetInventoryParams{HotelID: "h1", RoomTypeID: "double", From: dec10,
		To: dec14, TotalRooms: 5, Rate: &domain.Money{Amount: 10050, Currency: "EUR"}}))
	createRule(t, d, domain.SaleRule{Kind: domain.RuleLengthOfStay, HotelID: "h1", MinLOS: intp(1),
		DiscountFrom: intp(3), DiscountPercent: intp(33)})
	b := hold(t, d, "g1", stay3, 2)
	require.Equal(t, int64(13467), b.Price.Nights[0].Amount, "20100 less 33%% (6633)")

	a, got := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec14}))

	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	for i, n := range b.Price.Nights {
		assert.Equal(t, n, got.Price.Nights[i], "a night kept keeps its snapshot price")
	}
	assert.Equal(t, b.Price.Total+13467, got.Price.Total, "the added night is priced as the others were")
}
