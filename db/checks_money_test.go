package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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

// refundedPastTheLedger records a succeeded refund beyond what is left of its payment, which
// ledger_post now refuses (TestTheLedgerRefusesARefundBeyondWhatIsLeftOfItsPayment), as one
// written before it did: its row and the entries and balances the ledger posted for it then
// (asked back from kept, sent, succeeded), written with the triggers off. The money checks must
// still find it.
func refundedPastTheLedger(t *testing.T, d *testsuite.Database, b domain.Booking, id, paymentID string, amount int64) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, pgx.BeginFunc(ctx, d.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `WITH refund AS (
				INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status)
				VALUES ($1, $2, $3, $4, 'EUR', 'x', 'succeeded')
			), entries AS (
				INSERT INTO money_ledger (booking_id, payment_id, kind, cause, debit, credit, amount, currency, ref)
				VALUES ($2, $3, 'refund_asked', 'unplanned', 'kept', 'owed', $4, 'EUR', $1 || '@kept'),
					($2, $3, 'attempt_sent', NULL, 'owed', 'refunding', $4, 'EUR', $1),
					($2, $3, 'refund_succeeded', NULL, 'refunding', 'paid_back', $4, 'EUR', $1)
			), balances AS (
				INSERT INTO money_balances AS m (payment_id, account, booking_id, balance)
				VALUES ($3, 'kept', $2, -$4::bigint), ($3, 'paid_back', $2, $4)
				ON CONFLICT (payment_id, account) DO UPDATE SET balance = m.balance + EXCLUDED.balance
			)
			UPDATE money_kept_by_booking SET kept = kept - $4 WHERE booking_id = $2`, id, b.ID, paymentID, amount)
		return err
	}))
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
	refundedPastTheLedger(t, d, over, over.ID+"/goodwill/2", domain.DeskPaymentID(over.ID, "balance"), over.Price.Total-2000)

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
		reverse(t, d, b, key, false)
	}
	got, err := d.Store.GetBooking(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, domain.StatusConfirmed, got.Status)
	require.Zero(t, got.Paid)

	found := moneyFindings(t, d)
	assert.Len(t, found[b.ID], 1, "a CONFIRMED booking whose every payment was reversed is unpaid: %v", found)
}

// reverse reverses booking b's desk payment under key as entered by mistake, its refund asked of
// the provider (and succeeded, when settled).
func reverse(t *testing.T, d *testsuite.Database, b domain.Booking, key string, settled bool) {
	t.Helper()
	ctx := context.Background()
	pay := domain.DeskPaymentID(b.ID, key)
	var amount int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT amount FROM payments WHERE payment_id = $1`, pay).Scan(&amount))
	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "rev-"+key), BookingID: b.ID,
		Kind: db.RefundReversal, Amount: amount, Currency: "EUR", Reason: "entered by mistake", Actor: "desk-1",
		Parts: []domain.Payment{{ID: pay, Amount: amount, Currency: "EUR"}}})
	require.NoError(t, err)
	attempt := b.ID + "/" + db.StaffRefundStep("rev-"+key, 0, pay) + "/1"
	_, err = d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: attempt, BookingID: b.ID,
		PaymentID: pay, Amount: amount, Currency: "EUR", Reason: "entered by mistake"})
	require.NoError(t, err)
	if settled {
		require.NoError(t, d.Store.FinishRefundAttempt(ctx, attempt, "re_"+key, "succeeded", ""))
	}
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
	refundedPastTheLedger(t, d, b, b.ID+"/goodwill/1", domain.DeskPaymentID(b.ID, "deposit"), 6000) // made by hand

	found := moneyFindings(t, d)
	assert.NotEmpty(t, found[b.ID], "6000 refunded of a payment of 5000: %v", found)
}

// TestTheMoneyCheckFlagsABookingThatGaveBackMoreThanItGaveUp: what a booking's payments brought
// less what went back is what it keeps (paid; a REFUNDED one's fee). A REFUNDED booking whose
// policy kept a fee of 2000 but whose refunds gave everything back, and a CONFIRMED booking
// that gave 3000 of goodwill twice over, both gave back money they kept: each is wrong money, and
// neither is more than its payments brought, so only that rule's complement finds them.
func TestTheMoneyCheckFlagsABookingThatGaveBackMoreThanItGaveUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)

	fee := paidBooking(t, d, "fee-guest", soonStay, 1, 0)
	recordPayment(t, d, fee.ID, fee.PaymentID, fee.Paid)
	_, err := d.Store.StartRefund(ctx, fee.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid - 2000, nil })
	require.NoError(t, err)
	refunded(t, d, fee, fee.ID+"/refund/1", fee.PaymentID, fee.Paid) // the fee given back too
	_, err = d.Store.FinishRefund(ctx, fee.ID)
	require.NoError(t, err)

	twice := paidBooking(t, d, "twice-guest", soonStay, 1, 0)
	recordPayment(t, d, twice.ID, twice.PaymentID, twice.Paid)
	_, _, err = d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(twice.ID, "k"), BookingID: twice.ID,
		Kind: db.RefundGoodwill, Amount: 3000, Currency: "EUR", Reason: "broken air conditioner", Actor: "desk-1",
		Parts: []domain.Payment{{ID: twice.PaymentID, Amount: 3000, Currency: "EUR"}}})
	require.NoError(t, err)
	refunded(t, d, twice, twice.ID+"/staff-k/1", twice.PaymentID, 3000)
	refunded(t, d, twice, "manual/"+twice.PaymentID+"/m", twice.PaymentID, 3000)

	found := moneyFindings(t, d)
	assert.NotEmpty(t, found[fee.ID], "REFUNDED, its fee of 2000 given back too: %v", found)
	assert.NotEmpty(t, found[twice.ID], "keeps %d but gave back 6000 of %d: %v", twice.Paid-3000, twice.Paid, found)
}
