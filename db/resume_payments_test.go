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

// withBalance is a provider-paid two-night stay amended up a night whose balance pi_balance
// paid: the booking keeps two payments.
func withBalance(t *testing.T, d *testsuite.Database) (domain.Booking, domain.Amendment) {
	t.Helper()
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	b := providerPaid(t, d, "g1")
	a, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckOut: dec10.AddDays(3)}))
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)
	recordPayment(t, d, b.ID, "pi_balance", a.Difference)
	a, b, err := d.Store.SettleAmendment(context.Background(), b.ID, a.ID, domain.Payment{ID: "pi_balance",
		Amount: a.Difference, Currency: "EUR"})
	require.NoError(t, err)
	return b, a
}

// TestAResumedBookingKnowsThePaymentsItActedOn: the booking's payment and its balance are kept,
// and a third payment's refund was begun: all three were acted on. A second payment nothing acted
// on (its event never reached the workflow) is not.
func TestAResumedBookingKnowsThePaymentsItActedOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	b, _ := withBalance(t, d)
	recordPayment(t, d, b.ID, "pi_second", twoNights)
	recordPayment(t, d, b.ID, "pi_third", 100)
	_, err := d.Store.BeginRefundOfWhatIsLeft(ctx, db.RefundAttempt{ID: b.ID + "/" + db.ExtraRefundStep("pi_third") + "/1",
		BookingID: b.ID, PaymentID: "pi_third", Amount: 100, Currency: "EUR", Reason: "a payment the booking does not keep"})
	require.NoError(t, err)
	ids, err := d.Store.ActedOnPaymentIDs(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"pi_balance", b.PaymentID, "pi_third"}, ids, "sorted")
}

// TestARecoveredRefundGoesOnWithThePartItWasLostAt: a cancelled booking's refund is drawn on the
// balance first, then on the booking's payment, each under its own step; the recovery goes on
// with the first part no attempt gave back, from that part's attempts, and past a part resolved
// by hand after its failures.
func TestARecoveredRefundGoesOnWithThePartItWasLostAt(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	b, a := withBalance(t, d)
	b, err := d.Store.StartRefund(ctx, b.ID, nil, func(b domain.Booking) (int64, error) { return b.Paid, nil })
	require.NoError(t, err)
	require.Equal(t, twoNights+a.Difference, b.RefundDue)
	progress := func() db.RefundProgress {
		t.Helper()
		p, err := d.Store.BookingRefundProgress(ctx, b, "EUR")
		require.NoError(t, err)
		return p
	}
	attempt := func(step string, n int, amount int64, status string) {
		t.Helper()
		id := fmt.Sprintf("%s/%s/%d", b.ID, step, n)
		payment := b.PaymentID
		if step != "refund" {
			payment = "pi_balance"
		}
		_, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: id, BookingID: b.ID, PaymentID: payment,
			Amount: amount, Currency: "EUR", Reason: "cancelled"})
		require.NoError(t, err)
		require.NoError(t, d.Store.FinishRefundAttempt(ctx, id, "re_"+id, status, ""))
	}

	parts := []domain.Payment{{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"},
		{ID: b.PaymentID, Amount: twoNights, Currency: "EUR"}}
	assert.Equal(t, db.RefundProgress{Parts: parts, Part: 0, FirstAttempt: 1}, progress(), "never asked")
	attempt("refund-pi_balance", 1, a.Difference, "failed")
	assert.Equal(t, db.RefundProgress{Parts: parts, Part: 0, FirstAttempt: 2}, progress(), "after the balance's declined attempt")
	attempt("refund-pi_balance", 2, a.Difference, "succeeded")
	assert.Equal(t, db.RefundProgress{Parts: parts, Part: 1, FirstAttempt: 1}, progress(), "the balance given back")
	for n := 1; n <= 3; n++ {
		attempt("refund", n, twoNights, "failed")
	}
	assert.Equal(t, db.RefundProgress{Parts: parts, Part: 1, FirstAttempt: 4}, progress(),
		"the booking's payment's part goes on after its own failures, never the balance's step")
	require.NoError(t, d.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: b.ID + "/refund/0", BookingID: b.ID,
		PaymentID: b.PaymentID, Amount: twoNights, Currency: "EUR", Reason: "by hand", Reference: "TR-1", RecordedBy: "ops"}))
	assert.Equal(t, db.RefundProgress{Parts: parts, Part: 2, FirstAttempt: 1}, progress(), "resolved by hand: all given back")

	one := providerPaid(t, d, "g2")
	one, err = d.Store.StartRefund(ctx, one.ID, nil, func(b domain.Booking) (int64, error) { return 5000, nil })
	require.NoError(t, err)
	p, err := d.Store.BookingRefundProgress(ctx, one, "EUR")
	require.NoError(t, err)
	assert.Equal(t, db.RefundProgress{Parts: []domain.Payment{{ID: one.PaymentID, Amount: 5000, Currency: "EUR"}}, FirstAttempt: 1}, p,
		"one payment: its refund due, on it")
}

// TestARefundOfWhatIsLeftGivesBackWhatFinanceDidNotByHand: the refund of a payment no booking
// keeps asks for what is left of it; its attempt is asked again as recorded; once nothing is
// left it records nothing and answers succeeded.
func TestARefundOfWhatIsLeftGivesBackWhatFinanceDidNotByHand(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")
	recordPayment(t, d, b.ID, "pi_second", twoNights)
	_, err := d.Store.RecordManualRefund(ctx, manualRefund("pi_second", "m1", 100))
	require.NoError(t, err)
	whole := func(id string) db.RefundAttempt {
		t.Helper()
		a, err := d.Store.BeginRefundOfWhatIsLeft(ctx, db.RefundAttempt{ID: id, BookingID: b.ID, PaymentID: "pi_second",
			Amount: twoNights, Currency: "EUR", Reason: "a second payment"})
		require.NoError(t, err)
		return a
	}

	first := whole(b.ID + "/extra-pi_second/1")
	assert.Equal(t, []any{"requested", int64(twoNights - 100)}, []any{first.Status, first.Amount}, "what finance did not give back")
	assert.Equal(t, first.ID, whole(first.ID).ID, "asked again as recorded")
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, first.ID, "re_1", "succeeded", ""))
	done := whole(b.ID + "/extra-pi_second/2")
	assert.Equal(t, []any{"succeeded", int64(0)}, []any{done.Status, done.Amount}, "nothing left")
	assert.Equal(t, 2, count(t, d, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_second'`), "and nothing recorded")
	_, err = d.Store.BeginRefundOfWhatIsLeft(ctx, db.RefundAttempt{ID: first.ID, BookingID: b.ID, PaymentID: b.PaymentID,
		Amount: twoNights, Currency: "EUR", Reason: "another payment"})
	assert.ErrorIs(t, err, domain.ErrConflict, "a key is one refund")
}
