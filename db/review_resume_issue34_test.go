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

// An adversarial review of what a booking resumed after its workflow was lost gives back and
// keeps (worker.resumeInput, issue 34). Each test showed a defect and failed on the code it was
// written against (04daa01):
//
//	go test -count=1 -run 'TestReviewResume34' ./db/

// reviewResume34Unkept is g1's two nights paid by card, with a payment of amount it does not keep
// (paymentID) recorded by its webhook.
func reviewResume34Unkept(t *testing.T, paymentID string, amount int64) (*testsuite.Database, domain.Booking) {
	t.Helper()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec14, 5)
	b := providerPaid(t, d, "g1")
	recordPayment(t, d, b.ID, paymentID, amount)
	return d, b
}

// reviewResume34Attempt records attempt n of the refund that gives payment paymentID of booking b
// back (its step extra-<paymentId>), as RequestRefund does, and the provider's answer status
// under its refund re_<n>.
func reviewResume34Attempt(t *testing.T, d *testsuite.Database, b domain.Booking, paymentID string, amount int64, n, status string) {
	t.Helper()
	ctx := context.Background()
	a, err := d.Store.BeginRefundOfWhatIsLeft(ctx, db.RefundAttempt{ID: b.ID + "/" + db.ExtraRefundStep(paymentID) + "/" + n,
		BookingID: b.ID, PaymentID: paymentID, Amount: amount, Currency: "EUR", Reason: "a payment the booking does not keep"})
	require.NoError(t, err)
	require.Equal(t, "requested", a.Status)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "re_"+n, status, ""))
}

// resumedSeen is what a resumed run counts as acted on, as worker.resumeInput builds Resume.Seen:
// the payments the booking keeps and those whose refund its lost workflow had begun and not
// finished.
func resumedSeen(t *testing.T, d *testsuite.Database, bookingID string) []string {
	t.Helper()
	ctx := context.Background()
	seen, err := d.Store.ActedOnPaymentIDs(ctx, bookingID)
	require.NoError(t, err)
	unkept, err := d.Store.UnfinishedUnkeptRefunds(ctx, bookingID)
	require.NoError(t, err)
	for _, u := range unkept {
		seen = append(seen, u.Payment.ID)
	}
	return seen
}

// A confirmed booking (200.00 by card) is paid 100.00 more, a payment it does not keep (the rest
// of a desk deposit hold paid twice at the checkout, say): its workflow gives it back, and the
// provider pays. Later the guest adds a night: the amendment waits for its balance, 100.00. The
// workflow is lost and the booking resumed. The lost workflow had acted on the 100.00 payment
// (its b.seen held it), but resumeInput's Seen is only the payments kept and those whose refund is
// unfinished: a payment given back is forgotten. When the webhook of that payment is delivered
// again (its first delivery reached the lost workflow and was never marked delivered, so the
// provider retries it), the resumed run takes it as the amendment's balance (pendingBalance: no
// amendment named, 100.00, not the booking's price) and SettleAmendment applies the amendment with
// money the guest already has back: the booking's row says it was paid 300.00, the ledger that it
// keeps 200.00, and the added night is never paid for.
func TestReviewResume34AResumedRunForgetsAPaymentItsLostWorkflowGaveBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, b := reviewResume34Unkept(t, "pi_twice", 10000)
	reviewResume34Attempt(t, d, b, "pi_twice", 10000, "1", "succeeded")
	am, _ := amend(t, d, amendParams(b, "k1", domain.Change{CheckIn: dec10, CheckOut: dec10.AddDays(3)}))
	require.Equal(t, domain.AmendmentBalanceDue, am.Status, am.Reason)
	require.Equal(t, int64(10000), am.Difference)

	seen := resumedSeen(t, d, b.ID)
	assert.Contains(t, seen, "pi_twice", "the lost workflow acted on pi_twice: a redelivery of it is no payment")

	// And should the event reach a run that forgot it, the database refuses the given-back payment
	// as the balance (the workflow gives back what is left of it, nothing, and the amendment lapses
	// at its time).
	_, _, err := d.Store.SettleAmendment(ctx, b.ID, am.ID, domain.Payment{ID: "pi_twice", Amount: 10000, Currency: "EUR"})
	require.ErrorIs(t, err, db.ErrPaymentNotWhole)
	d.AssertLedgerAgrees(t)
}

// A confirmed booking's workflow is lost, and a second payment arrives for it: the workflow is
// gone, so worker.Deliverer starts a LatePayment workflow (late-payment-<paymentId>), whose saga
// gives the payment back under the booking's own step, extra-<paymentId>. The provider declines
// it three times and the saga waits for an operator (PAYMENT_STUCK, nothing in flight). The
// checker then resumes the booking: UnfinishedUnkeptRefunds finds the step begun and unfinished,
// so the resumed run restarts it too, beside the LatePayment saga still waiting: its attempt 4
// is sent, and the provider leaves it pending. An operator, seeing the LatePayment workflow stuck
// after three declines, gives the money back by bank transfer and resolves it as made by hand.
// That saga's guard (a resolve is refused while its attempt is in flight) knows only its own
// attempts, so it takes the resolve; RecordResolvedRefund finds nothing left of the payment
// (attempt 4 is under way), records nothing and answers as if it did. The provider then pays
// attempt 4: the guest has the payment back twice, and the books show it once. The resolution
// of a step one of whose attempts is in flight must be refused (or the resumed run must not take
// up a step another workflow runs).
func TestReviewResume34AResolutionIsRefusedWhileAnotherSagaHasTheStepInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, b := reviewResume34Unkept(t, "pi_late", twoNights)
	for _, n := range []string{"1", "2", "3"} {
		reviewResume34Attempt(t, d, b, "pi_late", twoNights, n, "failed") // the LatePayment saga's, declined
	}
	unkept, err := d.Store.UnfinishedUnkeptRefunds(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, unkept, 1, "the resumed run restarts the LatePayment workflow's refund")
	require.Equal(t, 4, unkept[0].FirstAttempt)
	reviewResume34Attempt(t, d, b, "pi_late", twoNights, "4", "pending") // the resumed run's restarted saga

	err = d.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: b.ID + "/" + db.ExtraRefundStep("pi_late") + "/0",
		BookingID: b.ID, PaymentID: "pi_late", Amount: twoNights, Currency: "EUR", Reason: "resolved by hand: bank transfer",
		RecordedBy: "op-1", Reference: "TX-1"})
	assert.Error(t, err, "the step's attempt 4 may still give the money back: a resolution by hand is refused")
	require.NoError(t, d.Store.SettleRefund(ctx, "re_4", true, ""), "the provider pays attempt 4")
}
