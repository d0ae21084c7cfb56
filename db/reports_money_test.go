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

// TestTheDailyReportHasALinePerPaymentAndRefundByChannelAndMethod: a desk cash deposit and a
// card-terminal balance, a provider payment, a refund at the desk, a partial provider refund and
// a refund finance settled by hand of a second payment: each is one item in its channel by its
// method, and the totals are the sums of the payment and refund rows, to the cent.
func TestTheDailyReportHasALinePerPaymentAndRefundByChannelAndMethod(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)

	desk := hold(t, d, "desk-guest", soonStay, 1)
	deposit, balance := int64(10001), desk.Price.Total-10001
	for _, p := range []db.DeskPayment{
		{BookingID: desk.ID, Key: "deposit", Amount: deposit, Currency: "EUR", Method: domain.MethodCash, TakenBy: "desk-1"},
		{BookingID: desk.ID, Key: "balance", Amount: balance, Currency: "EUR", Method: domain.MethodCardTerminal, TakenBy: "desk-2"},
	} {
		_, err := d.Store.TakeDeskPayment(ctx, p)
		require.NoError(t, err)
	}
	depositID := domain.DeskPaymentID(desk.ID, "deposit")
	deskRefund, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: desk.ID + "/goodwill/1", BookingID: desk.ID,
		PaymentID: depositID, Amount: 2533, Currency: "EUR", Reason: "goodwill", RecordedBy: "desk-1"})
	require.NoError(t, err)
	require.Equal(t, "succeeded", deskRefund.Status, "given back at the desk at once, by the staff member who asked")

	online := paidBooking(t, d, "online-guest", soonStay, 1, 0)
	recordPayment(t, d, online.ID, online.PaymentID, online.Paid)
	_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: online.ID + "/goodwill/1", BookingID: online.ID,
		PaymentID: online.PaymentID, Amount: 777, Currency: "EUR", Reason: "goodwill"})
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE refunds SET status = 'succeeded' WHERE id = $1`, online.ID+"/goodwill/1")
	require.NoError(t, err)
	// A second payment the booking does not keep, given back by finance by bank transfer.
	recordPayment(t, d, online.ID, "pi_twice", 4321)
	_, err = d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: "pi_twice", Key: "k", Amount: 4321, Currency: "EUR",
		Method: domain.MethodBankTransfer, Reference: "TX-1", Reason: "paid twice", Actor: "fin-1"})
	require.NoError(t, err)

	r, err := d.Store.DailyReport(ctx, db.Site{HotelID: "h1"}, domain.Span{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	type line struct{ kind, channel, method, payment, reference, takenBy string }
	lines := map[line]int64{}
	for _, it := range r.Items {
		lines[line{it.Kind, it.Channel, it.Method, it.PaymentID, it.Reference, it.TakenBy}] += it.Amount
	}
	assert.Equal(t, map[line]int64{
		{"payment", db.ChannelDesk, domain.MethodCash, depositID, "", "desk-1"}:                                        deposit,
		{"payment", db.ChannelDesk, domain.MethodCardTerminal, domain.DeskPaymentID(desk.ID, "balance"), "", "desk-2"}: balance,
		{"refund", db.ChannelDesk, domain.MethodCash, depositID, "", "desk-1"}:                                         -2533,
		{"payment", db.ChannelOnline, domain.MethodProvider, online.PaymentID, "", ""}:                                 online.Paid,
		{"refund", db.ChannelOnline, domain.MethodProvider, online.PaymentID, "", ""}:                                  -777,
		{"payment", db.ChannelOnline, domain.MethodProvider, "pi_twice", "", ""}:                                       4321,
		{"refund", db.ChannelOnline, domain.MethodBankTransfer, "pi_twice", "TX-1", "fin-1"}:                           -4321,
	}, lines)
	assert.Len(t, r.Items, 7, "one item per payment and per refund")
	assert.ElementsMatch(t, []db.ReportTotal{
		{Channel: db.ChannelDesk, Method: domain.MethodCash, Currency: "EUR", Payments: 1, Paid: deposit, Refunds: 1,
			Refunded: 2533, Net: deposit - 2533},
		{Channel: db.ChannelDesk, Method: domain.MethodCardTerminal, Currency: "EUR", Payments: 1, Paid: balance, Net: balance},
		{Channel: db.ChannelOnline, Method: domain.MethodProvider, Currency: "EUR", Payments: 2, Paid: online.Paid + 4321,
			Refunds: 1, Refunded: 777, Net: online.Paid + 4321 - 777},
		{Channel: db.ChannelOnline, Method: domain.MethodBankTransfer, Currency: "EUR", Refunds: 1, Refunded: 4321, Net: -4321},
	}, r.Totals)

	// The totals match the payment and refund rows to the cent.
	var paid, refunded, payments, refunds int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT (SELECT sum(amount) FROM payments WHERE status = 'succeeded'),
			(SELECT count(*) FROM payments WHERE status = 'succeeded'),
			(SELECT sum(amount) FROM refunds WHERE status = 'succeeded'), (SELECT count(*) FROM refunds WHERE status = 'succeeded')`).
		Scan(&paid, &payments, &refunded, &refunds))
	var gotPaid, gotRefunded, gotPayments, gotRefunds int64
	for _, tot := range r.Totals {
		gotPaid, gotRefunded = gotPaid+tot.Paid, gotRefunded+tot.Refunded
		gotPayments, gotRefunds = gotPayments+int64(tot.Payments), gotRefunds+int64(tot.Refunds)
	}
	assert.Equal(t, []int64{paid, payments, refunded, refunds}, []int64{gotPaid, gotPayments, gotRefunded, gotRefunds})
}
