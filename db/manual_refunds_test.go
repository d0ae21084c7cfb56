package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Refunds finance records as settled by hand (RecordManualRefund), beside the sagas that give
// money back through the provider: together they never give back more than is owed.

// TestARefundSettledByHandIsNotAlsoGivenBackByItsStaffRefundsSaga: a goodwill refund of 3000
// keeps the booking's units and lowers what it keeps at once; its saga has not asked for it yet
// (its workflow is busy, or was lost and the refund is asked again later). owedUnrecorded takes
// those 3000 for a refund resolved as made by hand, so finance may record 3000 settled by hand;
// the saga's attempt for the same part then goes through too (the payment has room for both):
// 6000 given back for a refund of 3000, and the checker is quiet.
func TestARefundSettledByHandIsNotAlsoGivenBackByItsStaffRefundsSaga(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := paidBooking(t, d, "twice-guest", soonStay, 1, 0)
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	_, _, err := d.Store.StartStaffRefund(ctx, db.StaffRefund{ID: db.StaffRefundID(b.ID, "k"), BookingID: b.ID,
		Kind: db.RefundGoodwill, Amount: 3000, Currency: "EUR", Reason: "broken air conditioner", Actor: "desk-1",
		Parts: []domain.Payment{{ID: b.PaymentID, Amount: 3000, Currency: "EUR"}}})
	require.NoError(t, err)

	_, manualErr := d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: b.PaymentID, Key: "m", Amount: 3000,
		Currency: "EUR", Method: domain.MethodBankTransfer, Reference: "TX-1", Reason: "goodwill by transfer", Actor: "fin-1"})
	attempt, attemptErr := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + db.StaffRefundStep("k", 0, b.PaymentID) + "/1",
		BookingID: b.ID, PaymentID: b.PaymentID, Amount: 3000, Currency: "EUR", Reason: "broken air conditioner"})
	require.NoError(t, attemptErr)

	var given int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT COALESCE(sum(amount), 0) FROM refunds WHERE booking_id = $1
		AND status <> 'failed'`, b.ID).Scan(&given))
	assert.LessOrEqual(t, given, int64(3000), "a refund of 3000 given back as %d (settled by hand: %v; the saga's attempt: %s)",
		given, manualErr, attempt.Status)
}

// TestARefundSettledByHandIsNotAlsoGivenBackByItsCancelsSaga: the same hole on a cancel. A
// cancelled booking is REFUNDING half its payment by its policy, its saga not asked yet;
// owedUnrecorded counts the refund due as given up with nothing covering it, so finance may
// record it settled by hand, and the saga's attempt then goes through too: the whole payment is
// given back for a refund due of half of it.
func TestARefundSettledByHandIsNotAlsoGivenBackByItsCancelsSaga(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := paidBooking(t, d, "cancel-guest", soonStay, 1, 0)
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	half := b.Paid / 2
	_, err := d.Store.StartRefund(ctx, b.ID, nil, func(domain.Booking) (int64, error) { return half, nil })
	require.NoError(t, err)

	_, manualErr := d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: b.PaymentID, Key: "m", Amount: half,
		Currency: "EUR", Method: domain.MethodBankTransfer, Reference: "TX-1", Reason: "refunded by transfer", Actor: "fin-1"})
	attempt, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/refund/1", BookingID: b.ID,
		PaymentID: b.PaymentID, Amount: half, Currency: "EUR", Reason: "cancelled"})
	require.NoError(t, err)

	var given int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT COALESCE(sum(amount), 0) FROM refunds WHERE booking_id = $1
		AND status <> 'failed'`, b.ID).Scan(&given))
	assert.LessOrEqual(t, given, half, "a refund due of %d given back as %d (settled by hand: %v; the saga's attempt: %s)",
		half, given, manualErr, attempt.Status)
}

// TestARefundSettledByHandNeverGivesBackTheFeeARefundedBookingKept: a booking cancelled under a
// policy that kept a fee of 2000 is REFUNDED, its refund due given back in full. Its payment is
// still the booking's (the fee is what it keeps), yet RecordManualRefund counts only live
// bookings as keeping a payment: 2000 more recorded settled by hand is accepted, and the checker
// is quiet on it (TestTheMoneyCheckFlagsABookingThatGaveBackMoreThanItGaveUp).
func TestARefundSettledByHandNeverGivesBackTheFeeARefundedBookingKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", soon, soonStay.CheckOut, 5)
	b := paidBooking(t, d, "fee-guest", soonStay, 1, 0)
	recordPayment(t, d, b.ID, b.PaymentID, b.Paid)
	_, err := d.Store.StartRefund(ctx, b.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid - 2000, nil })
	require.NoError(t, err)
	refunded(t, d, b, b.ID+"/refund/1", b.PaymentID, b.Paid-2000)
	_, err = d.Store.FinishRefund(ctx, b.ID)
	require.NoError(t, err)

	_, err = d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: b.PaymentID, Key: "m", Amount: 2000, Currency: "EUR",
		Method: domain.MethodBankTransfer, Reference: "TX-1", Reason: "fee given back", Actor: "fin-1"})
	assert.ErrorIs(t, err, domain.ErrConflict, "the fee is the REFUNDED booking's: nothing of it is owed")
}

// TestAPaymentRefundedByHandIsNotRefundedAgainByItsSaga: a second payment (pi_2, 300.00) for a
// paid booking is being given back by its extra-pi_2 saga; the provider declined attempt 1, and
// the saga waits to try again (or for an operator). Finance settles it by hand (a bank transfer)
// and records that: RecordManualRefund counts only the attempts that did not fail, so it takes
// the whole 300.00. The saga's next attempt is then still begun as a request to the provider
// for 300.00 more: pi_2 is given back twice.
func TestAPaymentRefundedByHandIsNotRefundedAgainByItsSaga(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := hold(t, d, "g1", stay3, 1)
	recordPayment(t, d, b.ID, "pi_1", 30000)
	b, err := d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_1", Amount: 30000, Currency: "EUR"})
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_2", 30000)

	attempt := func(n int) db.RefundAttempt {
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: fmt.Sprintf("%s/extra-pi_2/%d", b.ID, n),
			BookingID: b.ID, PaymentID: "pi_2", Amount: 30000, Currency: "EUR", Reason: "a second payment"})
		require.NoError(t, err)
		return a
	}
	first := attempt(1)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, first.ID, "", "failed", "card issuer declined"))
	_, err = d.Store.RecordManualRefund(ctx, db.ManualRefund{PaymentID: "pi_2", Key: "m1", Amount: 30000, Currency: "EUR",
		Method: domain.MethodBankTransfer, Reference: "SEPA-1", Reason: "the card refund failed", Actor: "finance"})
	require.NoError(t, err)

	second := attempt(2)
	var given int64
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT COALESCE(sum(amount), 0) FROM refunds
		WHERE payment_id = 'pi_2' AND status <> 'failed'`).Scan(&given))
	assert.LessOrEqual(t, given, int64(30000), "pi_2 of 300.00 is being given back %d (attempt 2 is %s)", given, second.Status)
}
