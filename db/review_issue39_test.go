package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAPartlyPaidEarlyDepartureOwesOnlyTheNightsStayed (review of issue 39): three nights at
// 100.00 at a hotel whose policy gives all nights not stayed back. The guest leaves after the
// first night. Whatever was paid before (the whole 300.00 as a control; a 50.00 desk deposit,
// which now confirms the hold; nothing, to pay at the hotel), what the guest ends up paying (brought, less what goes back,
// plus what is still due) is the one night stayed, 100.00, and the price says so.
func TestAPartlyPaidEarlyDepartureOwesOnlyTheNightsStayed(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h-rv", "double", dec10, dec13, 4)
	require.NoError(t, d.Store.SetCancellationPolicy(ctx, "h-rv", domain.CancellationPolicy{EarlyDeparture: domain.EarlyDepartureAll}))
	for _, deposit := range []int64{30000, 5000, 0} { // 0: confirmed by staff, to pay at the hotel
		params := holdParams(fmt.Sprintf("c%d", deposit), "k", stay3, 1)
		params.Request.HotelID = "h-rv"
		held, err := d.Store.Reserve(ctx, params)
		require.NoError(t, err)
		require.Equal(t, int64(30000), held.Price.Total)
		b := held
		if deposit > 0 {
			b = deskDeposit(t, d, held, deposit)
		} else {
			b, err = d.Store.Confirm(ctx, held.ID, nil)
			require.NoError(t, err)
		}
		_, err = d.Store.CheckIn(ctx, b.ID)
		require.NoError(t, err)

		// What the workflow does: DepartEarly, then the policy's refund under its key.
		left, err := d.Store.DepartEarly(ctx, b.ID, dec10.Time().Add(20*time.Hour))
		require.NoError(t, err)
		require.True(t, left.Begun)
		if left.Refund > 0 && b.Paid > 0 { // as the workflow's departEarly
			_, b, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, db.EarlyDepartureKey(left.Booking.CheckOut)),
				BookingID: b.ID, Kind: db.RefundEarlyDeparture, Amount: left.Refund, Currency: "EUR",
				Reason: "the guest left early", Actor: "desk"})
			require.NoError(t, err)
		} else {
			b, err = d.Store.GetBooking(ctx, b.ID)
			require.NoError(t, err)
		}
		m, err := d.Store.BookingMoneySummary(ctx, b)
		require.NoError(t, err)
		t.Logf("deposit %d: refund %d, price %d, paid(kept) %d, summary %+v", deposit, left.Refund, b.Price.Total, b.Paid, m)
		assert.Equal(t, int64(10000), m.Paid-m.Refunded-m.Refunding+m.Due,
			"deposit %d: the guest pays in all the one night stayed (summary %+v, refund %d)", deposit, m, left.Refund)
		assert.Equal(t, int64(10000), b.Price.Total, "deposit %d: the price is the night stayed", deposit)
	}
	d.AssertLedgerAgrees(t)
	d.AssertInventoryMatchesBookings(t)
}

// TestANoShowAskedAgainAfterItsSlotClosedIsStillANoShow (review of issue 39): the no-show is
// recorded but its answer is lost; its slot, no longer held, is then closed (a NO_SHOW holds
// nothing, so the closure is not refused). The activity's retry must answer as the first
// attempt did (a no-show), never SlotClosed for a booking already NO_SHOW: the workflow would
// take it as excused and skip the no-show's refund, fee and publication.
func TestANoShowAskedAgainAfterItsSlotClosedIsStillANoShow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := openVenue(t)
	b, err := d.Store.ReserveOrder(ctx, order("guest", "k1", slotLine("court-1", 8, 1)))
	require.NoError(t, err)
	_, err = d.Store.Confirm(ctx, b.ID, nil)
	require.NoError(t, err)
	first, err := d.Store.MarkNoShowUnlessClosed(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, domain.StatusNoShow, first.Booking.Status)
	require.False(t, first.SlotClosed)

	_, err = d.Store.CloseUnits(ctx, db.Closure{VenueID: "v1", ResourceID: "court-1", From: at(8), To: at(9), Reason: "rain", By: "desk-1"})
	require.NoError(t, err, "a NO_SHOW holds nothing: its slot closes")
	again, err := d.Store.MarkNoShowUnlessClosed(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.StatusNoShow, again.Booking.Status)
	assert.False(t, again.SlotClosed, "asked again, a no-show is answered as the first attempt: not excused")
	assert.Equal(t, first.Refund, again.Refund)
}
