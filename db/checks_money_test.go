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

// moneyFindings runs the checks on money and returns their findings by booking (or payment, for
// an unmatched one).
func moneyFindings(t *testing.T, d *testsuite.Database) map[string][]string {
	t.Helper()
	ctx := context.Background()
	time.Sleep(10 * time.Millisecond) // UnmatchedPayments counts payments created before now()
	out := map[string][]string{}
	money, err := d.Store.MoneyMismatches(ctx)
	require.NoError(t, err)
	unmatched, err := d.Store.UnmatchedPayments(ctx, 0)
	require.NoError(t, err)
	for _, f := range money {
		out[f.BookingID] = append(out[f.BookingID], f.Check+": "+f.Detail)
	}
	for _, f := range unmatched {
		out[f.PaymentID] = append(out[f.PaymentID], f.Check+": "+f.Detail)
	}
	return out
}

// deskPaid is a hold paid at the desk: a cash deposit, then the balance by card terminal.
func deskPaid(t *testing.T, d *testsuite.Database, customer string) domain.Booking {
	t.Helper()
	ctx := context.Background()
	b := hold(t, d, customer, soonStay, 1)
	for _, p := range []db.DeskPayment{
		{BookingID: b.ID, Key: "deposit", Amount: 5000, Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"},
		{BookingID: b.ID, Key: "balance", Amount: b.Price.Total - 5000, Currency: "EUR", Method: domain.MethodCardTerminal, TakenBy: "desk-1"},
	} {
		var err error
		b, err = d.Store.TakeDeskPayment(ctx, p)
		require.NoError(t, err)
	}
	require.Equal(t, domain.StatusConfirmed, b.Status)
	return b
}

// refunded records a succeeded refund of amount of payment paymentID of booking b.
func refunded(t *testing.T, d *testsuite.Database, b domain.Booking, id, paymentID string, amount int64) {
	t.Helper()
	_, err := d.Pool.Exec(context.Background(), `INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status)
		VALUES ($1, $2, $3, $4, 'EUR', 'x', 'succeeded')`, id, b.ID, paymentID, amount)
	require.NoError(t, err)
}

// TestTheMoneyCheckIsQuietOnBookingsWhoseMoneyAddsUp: paid at the desk by deposit and balance, a
// goodwill refund that keeps the booking, a cancellation whose policy kept a fee, a booking
// confirmed by staff without money, a channel's sale on account, and a second payment settled by
// hand in full.
func TestTheMoneyCheckIsQuietOnBookingsWhoseMoneyAddsUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)

	deskPaid(t, d, "desk-guest")

	goodwill := paidBooking(t, d, "goodwill-guest", soonStay, 1, 0)
	recordPayment(t, d, goodwill.ID, goodwill.PaymentID, goodwill.Paid)
	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(goodwill.ID, "k"), BookingID: goodwill.ID,
		Kind: db.RefundGoodwill, Amount: 1500, Currency: "EUR", Reason: "broken air conditioner", Actor: "desk-1",
		Parts: []domain.Payment{{ID: goodwill.PaymentID, Amount: 1500, Currency: "EUR"}}})
	require.NoError(t, err)
	refunded(t, d, goodwill, goodwill.ID+"/goodwill-k/1", goodwill.PaymentID, 1500)

	fee := paidBooking(t, d, "fee-guest", soonStay, 1, 0)
	recordPayment(t, d, fee.ID, fee.PaymentID, fee.Paid)
	_, err = d.Store.StartRefund(ctx, fee.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid - 2000, nil })
	require.NoError(t, err)
	refunded(t, d, fee, fee.ID+"/refund/1", fee.PaymentID, fee.Paid-2000)
	_, err = d.Store.FinishRefund(ctx, fee.ID)
	require.NoError(t, err)

	byStaff := hold(t, d, "staff-guest", soonStay, 1)
	_, err = d.Store.Confirm(db.WithActor(ctx, "desk-1"), byStaff.ID, nil)
	require.NoError(t, err)

	sold, err := d.Store.Reserve(ctx, channelHold("agent-guest", "A", "agent-a", soonStay, 1))
	require.NoError(t, err)
	_, err = d.Store.Confirm(db.WithActor(ctx, db.ActorPayment), sold.ID, nil)
	require.NoError(t, err)

	recordPayment(t, d, goodwill.ID, "pi_twice", 3000)
	_, err = d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: "pi_twice", Key: "k", Amount: 3000, Currency: "EUR",
		Method: domain.MethodBankTransfer, Reference: "TX-1", Reason: "paid twice", Actor: "fin-1"})
	require.NoError(t, err)

	assert.Empty(t, moneyFindings(t, d))
}

// TestTheMoneyCheckFlagsEachRule: refunded more than paid, confirmed by the system without money,
// an expired hold that kept a deposit, and a REFUNDED booking that kept more than its policy's
// fee, each made by hand, are each reported once.
func TestTheMoneyCheckFlagsEachRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 10)

	over := deskPaid(t, d, "over-guest")
	deposit := domain.DeskPaymentID(over.ID, "deposit")
	refunded(t, d, over, over.ID+"/goodwill/1", deposit, 4000)
	refunded(t, d, over, over.ID+"/goodwill/2", domain.DeskPaymentID(over.ID, "balance"), over.Price.Total-2000)

	unpaid := hold(t, d, "unpaid-guest", soonStay, 1)
	_, err := d.Store.Confirm(db.WithActor(ctx, db.ActorPayment), unpaid.ID, nil) // no person, no money
	require.NoError(t, err)

	expired := hold(t, d, "expired-guest", soonStay, 1)
	_, err = d.Store.TakeDeskPayment(ctx, db.DeskPayment{BookingID: expired.ID, Key: "deposit", Amount: 5000, Currency: "EUR",
		Method: domain.MethodCash, TakenBy: "desk-1"})
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE bookings SET status = 'EXPIRED' WHERE id = $1`, expired.ID) // its deposit not given back
	require.NoError(t, err)

	kept := paidBooking(t, d, "kept-guest", soonStay, 1, 0)
	recordPayment(t, d, kept.ID, kept.PaymentID, kept.Paid)
	_, err = d.Store.StartRefund(ctx, kept.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid, nil })
	require.NoError(t, err)
	refunded(t, d, kept, kept.ID+"/refund/1", kept.PaymentID, kept.Paid-1000) // 1000 short of what is due
	_, err = d.Store.FinishRefund(ctx, kept.ID)
	require.NoError(t, err)

	found := moneyFindings(t, d)
	assert.Equal(t, map[string][]string{
		over.ID: {"money_mismatch: refunded " + fmt.Sprint(over.Price.Total+2000) + " EUR, more than the " + fmt.Sprint(over.Price.Total) +
			" its payments brought"},
		unpaid.ID:  {"money_mismatch: CONFIRMED at a price of " + fmt.Sprint(unpaid.Price.Total) + " EUR, neither paid nor on account"},
		expired.ID: {"money_mismatch: EXPIRED and keeps 5000 EUR of what its payments brought, with no reason to"},
		kept.ID:    {"money_mismatch: REFUNDED and keeps 1000 EUR of what its payments brought, more than the 0 its policy kept"},
		// the expired hold's deposit is kept by no booking either
		domain.DeskPaymentID(expired.ID, "deposit"): {"unmatched_payment: 5000 EUR received, neither kept by a booking nor given back"},
	}, found)
}

// TestUnmatchedPaymentsCountDeskPaymentsAndRefundsSettledByHand: a booking paid at the desk in
// two payments keeps both; a payment no booking keeps is quiet once settled by hand in full, and
// flagged with what is left when settled in part.
func TestUnmatchedPaymentsCountDeskPaymentsAndRefundsSettledByHand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := deskPaid(t, d, "desk-guest")
	for _, p := range []struct {
		id            string
		amount, given int64
	}{{"pi_full", 3000, 3000}, {"pi_part", 3000, 1000}} {
		recordPayment(t, d, b.ID, p.id, p.amount)
		_, err := d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: p.id, Key: "k", Amount: p.given, Currency: "EUR",
			Method: domain.MethodBankTransfer, Reference: "TX-" + p.id, Reason: "paid twice", Actor: "fin-1"})
		require.NoError(t, err)
	}
	assert.Equal(t, map[string][]string{
		"pi_part": {"unmatched_payment: 3000 EUR received, 2000 of it neither kept by a booking nor given back"},
	}, moneyFindings(t, d))
}
