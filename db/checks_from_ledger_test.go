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

// unsettledRefunds runs the check of refunds left unsettled longer than age and returns its
// findings' details by attempt.
func unsettledRefunds(t *testing.T, d *testsuite.Database, age time.Duration) []string {
	t.Helper()
	found, err := d.Store.UnsettledRefunds(context.Background(), age)
	require.NoError(t, err)
	var out []string
	for _, f := range found {
		require.Equal(t, domain.CheckRefundUnsettled, f.Check)
		out = append(out, f.BookingID+" "+f.PaymentID+" "+f.Detail)
	}
	return out
}

// attemptSentAgo records a refund attempt of booking b's payment as BeginRefundAttempt would,
// sent (and last touched) ago, in status.
func attemptSentAgo(t *testing.T, d *testsuite.Database, b domain.Booking, id string, amount int64, status string, ago time.Duration) {
	t.Helper()
	_, err := d.Pool.Exec(context.Background(), `INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason,
			status, created_at, updated_at) VALUES ($1, $2, $3, $4, 'EUR', 'x', $5, now() - $6::interval, now() - $6::interval)`,
		id, b.ID, b.PaymentID, amount, status, ago)
	require.NoError(t, err)
}

// TestUnsettledRefundsAreAttemptsSentAndNeverAnswered pins refund_unsettled: an attempt requested
// or pending for over the age is reported, with its status and since when; one younger, or one
// that succeeded or failed, is not.
func TestUnsettledRefundsAreAttemptsSentAndNeverAnswered(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := paidBooking(t, d, "unsettled-guest", soonStay, 1, 0)
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	for _, a := range []struct {
		key, status string
		ago         time.Duration
	}{{"requested", "requested", 30 * time.Hour}, {"pending", "pending", 26 * time.Hour}, {"young", "requested", time.Hour},
		{"succeeded", "succeeded", 30 * time.Hour}, {"failed", "failed", 30 * time.Hour}} {
		attemptSentAgo(t, d, b, b.ID+"/staff-"+a.key+"/1", 100, a.status, a.ago)
	}
	// Whatever the database's time zone, the detail says when in it.
	var since map[string]string = map[string]string{}
	rows, err := d.Pool.Query(context.Background(), `SELECT id, to_char(created_at, 'YYYY-MM-DD HH24:MI TZ') FROM refunds`)
	require.NoError(t, err)
	for rows.Next() {
		var id, at string
		require.NoError(t, rows.Scan(&id, &at))
		since[id] = at
	}
	require.NoError(t, rows.Err())
	detail := func(key, status string) string {
		id := b.ID + "/staff-" + key + "/1"
		return fmt.Sprintf("%s %s refund attempt %s of 100 EUR still %s since %s", b.ID, b.PaymentID, id, status, since[id])
	}
	assert.Equal(t, []string{detail("requested", "requested"), detail("pending", "pending")}, unsettledRefunds(t, d, 25*time.Hour))
	assert.Len(t, unsettledRefunds(t, d, 0), 3, "the young one too, once past its age")
}

// TestAPendingRefundLookedUpAgainIsStillUnsettled: an attempt sent 30 hours ago that the
// provider still calls pending is unsettled, however recently its saga looked it up again (each
// lookup rewrites its row's updated_at, which the row-based check read as its age). A desk
// refund made by staff, at once, never is; one waiting at the desk for someone to hand it over
// is, once past the age, and says so.
func TestAPendingRefundLookedUpAgainIsStillUnsettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := paidBooking(t, d, "pending-guest", soonStay, 1, 0)
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	id := b.ID + "/staff-slow/1"
	attemptSentAgo(t, d, b, id, 100, "requested", 30*time.Hour)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, id, "re_slow", "pending", "")) // a lookup: still pending

	desk := deskPaid(t, d, "desk-guest")
	deposit := domain.DeskPaymentID(desk.ID, "deposit")
	_, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: desk.ID + "/staff-cash/1", BookingID: desk.ID,
		PaymentID: deposit, Amount: 100, Currency: "EUR", Reason: "x", RecordedBy: "desk-1"})
	require.NoError(t, err)

	found := unsettledRefunds(t, d, 25*time.Hour)
	require.Len(t, found, 1, "%v", found)
	assert.Contains(t, found[0], "refund attempt "+id+" of 100 EUR still pending since ")

	_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: desk.ID + "/refund/1", BookingID: desk.ID,
		PaymentID: deposit, Amount: 200, Currency: "EUR", Reason: "cancel"}) // the guest's: nobody at the desk
	require.NoError(t, err)
	found = unsettledRefunds(t, d, 0)
	require.Len(t, found, 2, "%v", found)
	assert.Contains(t, found[1], "refund attempt "+desk.ID+"/refund/1 of 200 EUR still due at the desk (nobody has handed it over) since ")
}

// TestAPaymentThatSucceededAfterFailingIsGivenItsAgeFromItsSuccess: a card declined two hours ago
// and paid a moment ago is money that just arrived: its booking has an hour to take it before
// unmatched_payment reports it, counted from when it was captured (the row-based check counted
// from the failed payment's row, and reported it at once). Past its age it is reported.
func TestAPaymentThatSucceededAfterFailingIsGivenItsAgeFromItsSuccess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := hold(t, d, "retried-guest", soonStay, 1)
	event := func(id string, succeeded bool) {
		t.Helper()
		_, err := d.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: id, Type: "payment_intent.succeeded",
			BookingID: b.ID, PaymentID: "pi_retried", Succeeded: succeeded, Amount: b.Price.Total, Currency: "EUR"}, []byte(`{}`))
		require.NoError(t, err)
	}
	event("evt_declined", false)
	_, err := d.Pool.Exec(ctx, `UPDATE payments SET created_at = now() - interval '2 hours' WHERE payment_id = 'pi_retried'`)
	require.NoError(t, err)
	event("evt_paid", true)

	found, err := d.Store.UnmatchedPayments(ctx, time.Hour)
	require.NoError(t, err)
	assert.Empty(t, found, "captured a moment ago")
	time.Sleep(10 * time.Millisecond)
	found, err = d.Store.UnmatchedPayments(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []domain.Finding{{Check: domain.CheckUnmatchedPay, BookingID: b.ID, PaymentID: "pi_retried",
		Detail: fmt.Sprintf("%d EUR received, neither kept by a booking nor given back", b.Price.Total)}}, found)
}

// TestARefundOfAPaymentThatNeverSucceededIsRefundedBeyondIt: an operator resolves as made by hand
// a refund of 5000 of a payment whose card was declined: 5000 went back of nothing that came in.
// refund_paid_twice reports it against what the ledger captured, 0 (the row-based check held it
// to the declined row's amount, and found nothing).
func TestARefundOfAPaymentThatNeverSucceededIsRefundedBeyondIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := hold(t, d, "declined-guest", soonStay, 1)
	_, err := d.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: "evt_declined", Type: "payment_intent.payment_failed",
		BookingID: b.ID, PaymentID: "pi_declined", Amount: b.Price.Total, Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
	require.NoError(t, d.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: b.ID + "/extra-pi_declined/0", BookingID: b.ID,
		PaymentID: "pi_declined", Amount: 5000, Currency: "EUR", Reason: "settled by hand", RecordedBy: "ops-1"}))

	assert.Equal(t, []string{"refunded 5000 of a payment of 0 EUR"}, refundsPaidTwice(t, d))
}

// TestAChannelBookingConfirmedByAPaymentNeverCapturedIsUnpaid: an agent's hold confirmed by the
// guest's payment was not sold on the channel's account (the ledger has no sale for it), so the
// channel pays nothing; while the ledger never captured that payment the booking is neither paid
// nor on account (the row-based check took any booking of a channel as on account, and said only
// that it keeps less than its paid). Once the
// payment is captured it is paid; an agent's hold confirmed without a payment is on account.
func TestAChannelBookingConfirmedByAPaymentNeverCapturedIsUnpaid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	splitStock(t, d)
	paid, err := d.Store.Reserve(ctx, channelHold("paying-guest", "A", "agent-a", soonStay, 1))
	require.NoError(t, err)
	_, err = d.Store.Confirm(db.WithActor(ctx, db.ActorPayment), paid.ID,
		&domain.Payment{ID: "pi_agent", Amount: paid.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	onAccount, err := d.Store.Reserve(ctx, channelHold("account-guest", "A", "agent-a", soonStay, 1))
	require.NoError(t, err)
	_, err = d.Store.Confirm(db.WithActor(ctx, db.ActorPayment), onAccount.ID, nil)
	require.NoError(t, err)

	total := paid.Price.Total
	assert.Equal(t, map[string][]string{paid.ID: {
		fmt.Sprintf("money_mismatch: CONFIRMED keeps 0 EUR of what its payments brought after its refunds, less than the %d it should keep", total),
		fmt.Sprintf("money_mismatch: CONFIRMED at a price of %d EUR, neither paid nor on account", total),
	}}, moneyFindings(t, d))
	recordPayment(t, d, paid.ID, "pi_agent", paid.Price.Total)
	assert.Empty(t, moneyFindings(t, d), "paid once its payment is captured")
}
