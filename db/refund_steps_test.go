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

// A refund step (a booking's refund, one part of a staff refund, an amendment's refund) is given
// back when any of its attempts succeeded, an operator's resolution (attempt 0) included: the
// highest attempt's number and status never decide what is owed (issue 34, defect 1).

// failThenResolve records three declined attempts of a refund step of booking b giving back
// amount of its payment, then the operator's resolution as made by hand (attempt 0).
func failThenResolve(t *testing.T, d *testsuite.Database, b domain.Booking, step string, amount int64) {
	t.Helper()
	ctx := context.Background()
	for n := 1; n <= 3; n++ {
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: fmt.Sprintf("%s/%s/%d", b.ID, step, n), BookingID: b.ID,
			PaymentID: b.PaymentID, Amount: amount, Currency: "EUR", Reason: "goodwill"})
		require.NoError(t, err)
		require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "", "failed", "insufficient balance"))
	}
	require.NoError(t, d.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: b.ID + "/" + step + "/0", BookingID: b.ID,
		PaymentID: b.PaymentID, Amount: amount, Currency: "EUR", Reason: "resolved by hand: transfer TR-9",
		Reference: "transfer TR-9", RecordedBy: "fin-1"}))
}

// resolvedStaffRefund is g1's two nights, paid, with a goodwill refund of amount under key that
// three declines and then an operator's resolution by hand gave back.
func resolvedStaffRefund(t *testing.T, key string, amount int64) (*testsuite.Database, domain.Booking) {
	t.Helper()
	d := testsuite.NewDatabase(t)
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	b := providerPaid(t, d, "g1")
	_, _, err := d.Store.StartStaffRefund(context.Background(), goodwill(b, key, amount))
	require.NoError(t, err)
	failThenResolve(t, d, b, db.StaffRefundStep(key, 0, b.PaymentID), amount)
	return d, b
}

// TestAStaffRefundResolvedByHandAfterThreeFailuresIsNotOwed: a resumed booking's workflow takes
// up the staff refunds no attempt gave back; one resolved by hand after three declines was given
// back (before, attempt 3 failed was read as owed, and attempt 4 went to the provider).
func TestAStaffRefundResolvedByHandAfterThreeFailuresIsNotOwed(t *testing.T) {
	t.Parallel()
	d, b := resolvedStaffRefund(t, "resolved", 5000)
	ctx := context.Background()
	_, _, err := d.Store.StartStaffRefund(ctx, goodwill(b, "declined", 3000))
	require.NoError(t, err)
	a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/staff-declined/1", BookingID: b.ID,
		PaymentID: b.PaymentID, Amount: 3000, Currency: "EUR", Reason: "goodwill"})
	require.NoError(t, err)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, a.ID, "", "failed", "insufficient balance"))

	owed, err := d.Store.UnfinishedStaffRefunds(ctx, b.ID)
	require.NoError(t, err)
	require.Len(t, owed, 1, "only the refund no attempt gave back: %+v", owed)
	assert.Equal(t, "staff-declined", owed[0].Step)
	assert.Equal(t, int64(3000), owed[0].Payment.Amount)
	assert.Equal(t, 2, owed[0].FirstAttempt, "it goes on after its declined attempt")
}

// TestANewAttemptOfARefundStepGivenBackIsAnsweredByItsSuccess: whatever saga asks (a resumed
// booking, a recovery, an operator's retry), an attempt of a step one of whose attempts
// succeeded is not made: the success answers it, and nothing is sent. Other steps, and other
// payments, are asked as before.
func TestANewAttemptOfARefundStepGivenBackIsAnsweredByItsSuccess(t *testing.T) {
	t.Parallel()
	d, b := resolvedStaffRefund(t, "k", 5000)
	ctx := context.Background()
	attempt := func(id string, amount int64) db.RefundAttempt {
		t.Helper()
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: id, BookingID: b.ID, PaymentID: b.PaymentID,
			Amount: amount, Currency: "EUR", Reason: "goodwill"})
		require.NoError(t, err)
		return a
	}

	fourth := attempt(b.ID+"/staff-k/4", 5000)
	assert.Equal(t, []string{"succeeded", b.ID + "/staff-k/0"}, []string{fourth.Status, fourth.ID},
		"answered by the resolution, never requested")
	assert.Equal(t, 0, count(t, d, `SELECT count(*) FROM refunds WHERE id = $1`, b.ID+"/staff-k/4"), "and not recorded")
	assert.Equal(t, int64(5000), refundedOf(t, d, b.PaymentID), "given back once")

	first := attempt(b.ID+"/staff-other/1", 2000)
	assert.Equal(t, "requested", first.Status, "another step is asked")
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, first.ID, "re_1", "succeeded", ""))
	again := attempt(b.ID+"/staff-other/2", 2000)
	assert.Equal(t, []string{"succeeded", first.ID}, []string{again.Status, again.ID}, "a success by the provider answers too")
	assert.Equal(t, "requested", attempt(b.ID+"/staff-other/1/1", 1000).Status,
		"a step whose name goes on past another's is its own (keys may hold slashes)")
}

// refundedOf is what a payment's succeeded refunds gave back.
func refundedOf(t *testing.T, d *testsuite.Database, paymentID string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, d.Pool.QueryRow(context.Background(), `SELECT COALESCE(sum(amount), 0) FROM refunds
		WHERE payment_id = $1 AND status = 'succeeded'`, paymentID).Scan(&n))
	return n
}

// TestOwedStaffRefundsAreFoundWhateverTheBookingsStatus: the parts of staff refunds no attempt
// gave back and none is asking for are owed, a no-show's as a confirmed booking's, a later
// part's under its own step; a part under way is unfinished but not owed, and one given back (by
// hand too), or whose payment went back whole another way, is neither.
func TestOwedStaffRefundsAreFoundWhateverTheBookingsStatus(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	ctx := context.Background()
	d.SetInventory(t, "h1", "double", dec10, dec13, 5)
	begin := func(b domain.Booking, id, paymentID string, amount int64) db.RefundAttempt {
		t.Helper()
		a, err := d.Store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: b.ID + "/" + id, BookingID: b.ID, PaymentID: paymentID,
			Amount: amount, Currency: "EUR", Reason: "goodwill"})
		require.NoError(t, err)
		return a
	}
	staff := func(b domain.Booking, key string, parts ...domain.Payment) {
		t.Helper()
		r := goodwill(b, key, 0)
		r.Parts = parts
		for _, p := range parts {
			r.Amount += p.Amount
		}
		_, _, err := d.Store.StartStaffRefund(ctx, r)
		require.NoError(t, err)
	}
	part := func(id string, amount int64) domain.Payment {
		return domain.Payment{ID: id, Amount: amount, Currency: "EUR"}
	}

	noShow := providerPaid(t, d, "g1")
	_, err := d.Store.NoShow(ctx, noShow.ID)
	require.NoError(t, err)
	staff(noShow, "lost", part(noShow.PaymentID, 5000))   // its workflow was lost before any attempt
	staff(noShow, "asking", part(noShow.PaymentID, 1000)) // an attempt is under way
	begin(noShow, "staff-asking/1", noShow.PaymentID, 1000)

	two := hold(t, d, "g2", nights(dec10, 2), 1)
	heldDeposit(t, d, deskPayment(two.ID, "deposit", 5000))
	recordPayment(t, d, two.ID, "pi_rest", twoNights-5000)
	two, err = d.Store.Confirm(ctx, two.ID, &domain.Payment{ID: "pi_rest", Amount: twoNights - 5000, Currency: "EUR"})
	require.NoError(t, err)
	desk := domain.DeskPaymentID(two.ID, "deposit")
	staff(two, "two", part("pi_rest", 3000), part(desk, 2000)) // the card's part given back, the desk's lost
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, begin(two, "staff-two/1", "pi_rest", 3000).ID, "re_1", "succeeded", ""))
	staff(two, "by-hand", part("pi_rest", 4000))
	failThenResolve(t, d, domain.Booking{ID: two.ID, PaymentID: "pi_rest"}, "staff-by-hand", 4000)

	gone := providerPaid(t, d, "g3")
	staff(gone, "declined", part(gone.PaymentID, 6000))
	_, err = d.Store.CheckIn(ctx, gone.ID)
	require.NoError(t, err)
	require.NoError(t, d.Store.FinishRefundAttempt(ctx, begin(gone, "staff-declined/1", gone.PaymentID, 6000).ID, "", "failed", "x"))
	owedBefore, err := d.Store.OwedStaffRefunds(ctx)
	require.NoError(t, err)
	require.NoError(t, d.Store.RecordResolvedRefund(ctx, db.RefundAttempt{ID: gone.ID + "/refund/0", BookingID: gone.ID,
		PaymentID: gone.PaymentID, Amount: twoNights, Currency: "EUR", Reason: "the whole payment went back by transfer",
		Reference: "TR-4", RecordedBy: "fin-1"})) // its payment went back whole another way

	steps := func(owed []db.OwedRefund) map[string]int64 {
		out := map[string]int64{}
		for _, o := range owed {
			out[o.BookingID+" "+o.Step] = o.Payment.Amount
		}
		return out
	}
	owed, err := d.Store.OwedStaffRefunds(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{noShow.ID + " staff-lost": 5000, two.ID + " staff-two@" + desk: 2000}, steps(owed))
	assert.Equal(t, int64(6000), steps(owedBefore)[gone.ID+" staff-declined"], "owed while its payment had money left")
	for _, o := range owed {
		assert.Equal(t, 1, o.FirstAttempt, "%s: asked from its first attempt", o.Step)
		assert.Equal(t, "desk-1", o.Actor)
	}

	unfinished, err := d.Store.UnfinishedStaffRefunds(ctx, noShow.ID)
	require.NoError(t, err)
	require.Len(t, unfinished, 2, "%+v", unfinished)
	assert.Equal(t, []any{"staff-lost", false, 1}, []any{unfinished[0].Step, unfinished[0].InFlight, unfinished[0].FirstAttempt})
	assert.Equal(t, []any{"staff-asking", true, 1}, []any{unfinished[1].Step, unfinished[1].InFlight, unfinished[1].FirstAttempt},
		"taken up under the key it was asked with")
	unfinished, err = d.Store.UnfinishedStaffRefunds(ctx, gone.ID)
	require.NoError(t, err)
	assert.Empty(t, unfinished)
}
