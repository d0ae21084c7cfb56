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

// TestTheMoneyCheckFlagsAConfirmedBookingWhoseDeskPaymentsWereAllReversed: a hold paid at the
// desk in full, then both desk payments reversed as entered by mistake: the booking is CONFIRMED
// with nothing kept and its price due again, so it is neither paid nor on account. Its payment_id
// still names the first desk payment, which must not count as paid.
func TestTheMoneyCheckFlagsAConfirmedBookingWhoseDeskPaymentsWereAllReversed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := deskPaid(t, d, "reversed-guest")
	for _, key := range []string{"deposit", "balance"} {
		pay := domain.DeskPaymentID(b.ID, key)
		var amount int64
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT amount FROM payments WHERE payment_id = $1`, pay).Scan(&amount))
		_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "rev-"+key), BookingID: b.ID,
			Kind: db.RefundReversal, Amount: amount, Currency: "EUR", Reason: "entered by mistake", Actor: "desk-1",
			Parts: []domain.Payment{{ID: pay, Amount: amount, Currency: "EUR"}}})
		require.NoError(t, err)
		_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/staff-rev-" + key + "/1", BookingID: b.ID,
			PaymentID: pay, Amount: amount, Currency: "EUR", Reason: "entered by mistake"})
		require.NoError(t, err)
	}
	got, err := d.Store.GetBooking(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, domain.StatusConfirmed, got.Status)
	require.Zero(t, got.Paid)

	found := moneyFindings(t, d)
	assert.Len(t, found[b.ID], 1, "a CONFIRMED booking whose every payment was reversed is unpaid: %v", found)
}

// TestTheMoneyCheckFlagsARefundAboveItsPayment: a booking paid at the desk by a deposit of 5000
// and a balance; a refund of 6000 drawn on the deposit alone gives back more than that payment
// brought, though the booking as a whole was paid more. Never refund more than was paid, per
// payment too: the checker reports it.
func TestTheMoneyCheckFlagsARefundAboveItsPayment(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := deskPaid(t, d, "over-one-guest")
	require.Greater(t, b.Price.Total-5000, int64(6000))
	refunded(t, d, b, b.ID+"/goodwill/1", domain.DeskPaymentID(b.ID, "deposit"), 6000) // made by hand

	found := moneyFindings(t, d)
	assert.NotEmpty(t, found[b.ID], "6000 refunded of a payment of 5000: %v", found)
}
