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

// Amendments of bookings whose money staff steered: a desk deposit on a hold, an early
// departure's refund, a price set by hand.

// TestAHoldWithADeskDepositIsNeverAmendedBelowWhatWasPaid: two holds of three nights (300.00),
// each with a desk deposit, are shortened to one night (100.00). Amend treats a hold as unpaid
// (paid := status != HOLD && ...): the price falls with no refund, so one hold keeps 200.00 for a
// 100.00 stay and the other is paid in full yet still on hold. Neither can ever be confirmed (no
// desk payment or checkout is below what is due, 0), and at expiry the booking is lost.
func TestAHoldWithADeskDepositIsNeverAmendedBelowWhatWasPaid(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	for _, deposit := range []int64{20000, 10000} {
		customer := fmt.Sprintf("g%d", deposit)
		b := hold(t, d, customer, stay3, 1)
		require.Equal(t, int64(30000), b.Price.Total)
		_, err := d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: b.ID, Key: "deposit", Amount: deposit,
			Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"})
		require.NoError(t, err)

		a, got, err := d.Store.Amend(ctx, amendParams(b, "k1", domain.Change{CheckOut: dec11}))
		if err != nil || a.Status == domain.AmendmentRefused {
			continue // refusing the change is an answer
		}
		assert.LessOrEqual(t, got.Paid, got.Price.Total, "deposit %d: a hold keeps %d for a price of %d, nothing refunded (%+v)",
			deposit, got.Paid, got.Price.Total, a)
		if got.Paid >= got.Price.Total {
			assert.NotEqual(t, domain.StatusHold, got.Status, "deposit %d: paid in full but left on hold, to expire", deposit)
		}
	}
}

// TestAStayExtendedAgainAfterAnEarlyDepartureIsPaidForAgain: a guest paid 300.00 for three
// nights at a hotel whose policy gives all nights not stayed back, leaves after the first and is
// refunded 200.00 (the booking keeps 100.00). The guest then stays after all: the check-out moves
// back to the 13th. The booking's price kept the nights given back (300.00), so the amendment
// costs nothing more (difference 0) and is applied at once: three nights for 100.00.
func TestAStayExtendedAgainAfterAnEarlyDepartureIsPaidForAgain(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h-back", "double", dec10, dec13, 2)
	require.NoError(t, d.Store.SetCancellationPolicy(ctx, "h-back", domain.CancellationPolicy{EarlyDeparture: domain.EarlyDepartureAll}))
	params := holdParams("c1", "h-back", stay3, 1)
	params.Request.HotelID = "h-back"
	b, err := d.Store.Reserve(ctx, params)
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_1", b.Price.Total)
	recordPayment(t, d, b.ID, "pi_1", b.Price.Total)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_1", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	require.Equal(t, int64(30000), b.Paid)

	left, err := d.Store.DepartEarly(ctx, b.ID, dec10.Time().Add(20*time.Hour))
	require.NoError(t, err)
	require.Equal(t, int64(20000), left.Refund)
	_, b, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, db.EarlyDepartureKey(left.Booking.CheckOut)),
		BookingID: b.ID, Kind: db.RefundEarlyDeparture, Amount: left.Refund, Currency: "EUR", Reason: "the guest left early",
		Actor: "desk", Parts: []domain.Payment{{ID: "pi_1", Amount: left.Refund, Currency: "EUR"}}})
	require.NoError(t, err)
	require.Equal(t, int64(10000), b.Paid)

	a, got, err := d.Store.Amend(ctx, amendParams(b, "back", domain.Change{CheckOut: dec13}))
	require.NoError(t, err)
	if a.Status == domain.AmendmentRefused {
		return // refusing it is an answer
	}
	assert.Equal(t, domain.AmendmentBalanceDue, a.Status, "the nights given back are paid for again: %+v", a)
	assert.Equal(t, int64(20000), a.Difference, "the two nights refunded")
	if a.Status == domain.AmendmentApplied {
		assert.GreaterOrEqual(t, got.Paid, got.Price.Total, "three nights kept for %d of %d", got.Paid, got.Price.Total)
	}
}

// TestAHoldPricedByHandIsNotRepricedUpByAShorterStay: the desk sets a three-night hold (300.00)
// to 150.00 by hand, with a reason. The guest then shortens it to two nights: Amend prices the
// stay from the nights' snapshot, which the price change left at 100.00 each, so the hold now
// costs 200.00: a shorter stay costs more than the price staff set, and the change by hand is
// silently gone.
func TestAHoldPricedByHandIsNotRepricedUpByAShorterStay(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", stay3, 1)
	b, err := d.Store.ChangePrice(ctx, db.PriceChange{BookingID: b.ID, Total: 15000, Currency: "EUR",
		Reason: "the air conditioning is broken", Actor: "desk-1"})
	require.NoError(t, err)
	require.Equal(t, int64(15000), b.Price.Total)

	a, got, err := d.Store.Amend(ctx, amendParams(b, "shorter", domain.Change{CheckOut: dec12}))
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	assert.LessOrEqual(t, got.Price.Total, int64(15000), "two nights cost more than the three staff priced")
}
