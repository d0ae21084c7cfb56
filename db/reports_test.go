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

// TestTheDailyReportCutsAtLocalMidnight: a venue in Shanghai (UTC+8) with the server in UTC. A
// payment at 23:59 local is on that day, one at 00:00 local the next is not; refunds count when
// they succeeded; totals are the sums of the items, to the cent.
func TestTheDailyReportCutsAtLocalMidnight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	venueWith(t, d.Store, "Asia/Shanghai", court)
	slotDay := domain.NewDate(2030, 6, 10)
	_, err := d.Store.ApplySchedule(ctx, "v1", "court-1", schedule(slotDay, slotDay.AddDays(1), "07:00", "10:00", 60))
	require.NoError(t, err)
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	require.NoError(t, err)
	var ids []string
	for i, key := range []string{"a", "b", "c"} {
		start := time.Date(2030, 6, 10, 7+i, 0, 0, 0, shanghai)
		b, err := d.Store.ReserveOrder(ctx, order("guest-"+key, key, domain.OrderLine{ResourceID: "court-1", Start: start,
			End: start.Add(time.Hour), Quantity: 1}))
		require.NoError(t, err)
		require.Equal(t, domain.StatusHold, b.Status)
		ids = append(ids, b.ID)
	}
	day := domain.NewDate(2030, 6, 1)
	local := func(dd, h, m int) time.Time { return time.Date(2030, 6, dd, h, m, 0, 0, shanghai) }
	pay := func(id, booking string, amount int64, at time.Time) {
		_, err := d.Pool.Exec(ctx, `INSERT INTO payments (payment_id, booking_id, amount, currency, status, created_at, succeeded_at)
			VALUES ($1, $2, $3, 'EUR', 'succeeded', $4::timestamptz - interval '1 day', $4)`, id, booking, amount, at)
		require.NoError(t, err)
	}
	pay("pi_early", ids[0], 2000, local(1, 0, 0))  // the first instant of the day
	pay("pi_late", ids[1], 2000, local(1, 23, 59)) // 15:59 UTC
	pay("pi_next", ids[2], 2000, local(2, 0, 0))   // 16:00 UTC: the next day in Shanghai
	pay("pi_before", ids[2], 1500, local(1, 0, 0).Add(-time.Second))
	// A hotel that happens to share the venue's id, with a payment that day: another site.
	d.SetInventory(t, "v1", "double", dec10, dec13, 1)
	hotelHold := holdParams("hotel-guest", "k", stay3, 1)
	hotelHold.Request.HotelID = "v1"
	stay, err := d.Store.Reserve(ctx, hotelHold)
	require.NoError(t, err)
	pay("pi_hotel", stay.ID, 9000, local(1, 10, 0))
	_, err = d.Pool.Exec(ctx, `INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status, created_at, updated_at)
		VALUES ('r1', $1, 'pi_early', 2000, 'EUR', 'cancelled', 'succeeded', $2, $3),
		       ('r2', $1, 'pi_early', 1, 'EUR', 'cancelled', 'failed', $2, $3)`, ids[0], local(1, 9, 0), local(1, 12, 0))
	require.NoError(t, err)

	report, err := d.Store.DailyReport(ctx, db.Site{VenueID: "v1"}, domain.DayBounds(day, shanghai))
	require.NoError(t, err)
	var payments []string
	for _, it := range report.Items {
		payments = append(payments, it.PaymentID+"/"+it.Kind)
	}
	assert.Equal(t, []string{"pi_early/payment", "pi_early/refund", "pi_late/payment"}, payments, "cut at local midnight")
	assert.Equal(t, []db.ReportTotal{{Channel: db.ChannelOnline, Method: domain.MethodProvider, Currency: "EUR", Payments: 2,
		Paid: 4000, Refunds: 1, Refunded: 2000, Net: 2000}}, report.Totals)
	assert.Equal(t, local(1, 12, 0).UTC(), report.Items[1].At.UTC(), "a refund counts when it succeeded")

	next, err := d.Store.DailyReport(ctx, db.Site{VenueID: "v1"}, domain.DayBounds(day.AddDays(1), shanghai))
	require.NoError(t, err)
	require.Len(t, next.Items, 1)
	assert.Equal(t, "pi_next", next.Items[0].PaymentID)
	hotel, err := d.Store.DailyReport(ctx, db.Site{HotelID: "v1"}, domain.DayBounds(day, shanghai))
	require.NoError(t, err)
	require.Len(t, hotel.Items, 1, "a hotel of the same id is another site")
	assert.Equal(t, "pi_hotel", hotel.Items[0].PaymentID)

	// Confirmed by staff without money (twice: the second changes nothing), then cancelled: no
	// money moved, and the report has no item for it.
	for range 2 {
		_, err = d.Store.Confirm(ctx, ids[1], nil)
		require.NoError(t, err)
	}
	_, err = d.Store.Release(ctx, ids[1], domain.StatusCancelled)
	require.NoError(t, err)
	today, err := d.Store.DailyReport(ctx, db.Site{VenueID: "v1"}, domain.DayBounds(domain.DateOf(time.Now(), shanghai), shanghai))
	require.NoError(t, err)
	assert.Empty(t, today.Items, "a booking confirmed without money moved none")
	assert.Empty(t, today.Totals)
	assert.Equal(t, 3, today.Orders, "the three orders made today")
}

// TestChannelSalesOnAccountAreNotDeskMoney: an agent's booking confirmed on its channel's account
// (no payment) is the channel's, under `account` with the channel's id, and so is its
// cancellation, each item an entry of the money ledger; a booking confirmed by staff without
// money beside it moved none and is not in the report.
func TestChannelSalesOnAccountAreNotDeskMoney(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	sold, err := d.Store.Reserve(ctx, channelHold("agent-guest", "A", "agent-a", soonStay, 1))
	require.NoError(t, err)
	desk, err := d.Store.Reserve(ctx, holdParams("desk-guest", "k", soonStay, 2))
	require.NoError(t, err)
	for _, id := range []string{sold.ID, desk.ID} {
		_, err = d.Store.Confirm(ctx, id, nil)
		require.NoError(t, err)
	}
	_, err = d.Store.Release(ctx, sold.ID, domain.StatusCancelled)
	require.NoError(t, err)

	report, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, domain.DayBounds(domain.DateOf(time.Now(), time.UTC), time.UTC))
	require.NoError(t, err)
	assert.Equal(t, []db.ReportTotal{
		{Channel: db.ChannelAccount, ChannelID: "A", Method: db.MethodAccount, Currency: "EUR", Payments: 1,
			Paid: sold.Price.Total, Refunds: 1, Refunded: sold.Price.Total},
	}, report.Totals)
	require.Len(t, report.Items, 2)
	entries, err := d.Store.BookingLedger(ctx, sold.ID)
	require.NoError(t, err)
	require.Len(t, entries, 2, "the sale on account and its reversal")
	for i, it := range report.Items {
		assert.Equal(t, sold.ID, it.BookingID, "the desk's booking moved no money")
		assert.Equal(t, db.ChannelAccount, it.Channel)
		assert.Equal(t, "A", it.ChannelID)
		assert.Equal(t, db.MethodAccount, it.Method)
		e := entries[i]
		assert.True(t, e.At.Equal(it.At), "item %d is the ledger's entry %s of %s", i, e.Kind, e.At)
		assert.Equal(t, map[bool]int64{true: e.Amount, false: -e.Amount}[e.Credit == "channel:A"], it.Amount)
	}
}

// TestTheDailyReportNamesGuestsReasonsAndNotes (issue 39): finance reads who each movement was
// for (the booking's guest) and why (a refund's reason, a desk payment's note).
func TestTheDailyReportNamesGuestsReasonsAndNotes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", nights(dec10, 2), 1)
	_, err := d.Store.PutGuest(ctx, b.ID, domain.Guest{Name: "Zsófia Nagy"})
	require.NoError(t, err)
	p := deskPayment(b.ID, "all", twoNights)
	p.Note = "paid for both nights"
	takeDesk(t, d, p)
	_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "gw"), BookingID: b.ID,
		Kind: db.RefundGoodwill, Amount: 1000, Currency: "EUR", Reason: "noisy room", Actor: "desk-1",
		Parts: []domain.Payment{{ID: domain.DeskPaymentID(b.ID, "all"), Amount: 1000, Currency: "EUR"}}})
	require.NoError(t, err)
	_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/staff-gw/1", BookingID: b.ID,
		PaymentID: domain.DeskPaymentID(b.ID, "all"), Amount: 1000, Currency: "EUR", Reason: "noisy room", RecordedBy: "desk-1"})
	require.NoError(t, err) // given back at the desk by who asked: recorded as made at once

	r, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, domain.Span{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	var got []string
	for _, it := range r.Items {
		got = append(got, it.Kind+"|"+it.Guest+"|"+it.Reason+"|"+it.Note)
	}
	assert.ElementsMatch(t, []string{"payment|Zsófia Nagy||paid for both nights", "refund|Zsófia Nagy|noisy room|"}, got)
}
