package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

// resumedWith resumes booking b through a client that only records the workflow's input.
func resumedWith(t *testing.T, store *db.Store, b domain.Booking) workflows.BookingInput {
	t.Helper()
	c := &mocks.Client{}
	var in workflows.BookingInput
	c.On("ExecuteWorkflow", mock.Anything, mock.Anything, workflows.BookingWorkflowName, mock.Anything).Return(
		func(_ context.Context, _ client.StartWorkflowOptions, _ any, args ...any) (client.WorkflowRun, error) {
			in = args[0].(workflows.BookingInput)
			return nil, nil
		})
	require.NoError(t, worker.ResumeBooking(context.Background(), c, store, b, "resumed by the review", worker.ResumeOptions{
		Now: func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }}))
	require.NotNil(t, in.Resume)
	return in
}

// paidStay is a 3-night stay from 2030-12-10 paid with pi_1, at a hotel with 5 rooms a night
// for 4 nights.
func paidStay(t *testing.T) (*testsuite.Database, domain.Booking) {
	t.Helper()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	dec10 := domain.NewDate(2030, 12, 10)
	d.SetInventory(t, "h1", "double", dec10, dec10.AddDays(4), 5)
	req := domain.HoldRequest{CustomerID: "g1", HotelID: "h1", RoomTypeID: "double",
		Stay: domain.Stay{CheckIn: dec10, CheckOut: dec10.AddDays(3)}, Quantity: 1}
	b, err := d.Store.Reserve(ctx, db.ReserveParams{BookingID: domain.BookingID([]byte("resume-review"), "g1", "g1", "k"),
		IdempotencyKey: "k", Request: req, CreatedBy: "g1", HoldTTL: 10 * time.Minute})
	require.NoError(t, err)
	recordPayment(t, d, b.ID, "pi_1", b.Price.Total)
	b, err = d.Store.Confirm(ctx, b.ID, &domain.Payment{ID: "pi_1", Amount: b.Price.Total, Currency: "EUR"})
	require.NoError(t, err)
	return d, b
}

// recordPayment records a succeeded payment as its webhook does before the workflow hears of it.
func recordPayment(t *testing.T, d *testsuite.Database, bookingID, paymentID string, amount int64) {
	t.Helper()
	_, err := d.Store.RecordPaymentEvent(context.Background(), domain.PaymentEvent{EventID: "evt_" + paymentID,
		Type: "payment_intent.succeeded", BookingID: bookingID, PaymentID: paymentID, Succeeded: true, Amount: amount,
		Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
}

// TestAResumedBookingKnowsItsPendingAmendmentAndItsBalancePayments: ResumeBooking starts the
// workflow of a booking whose own is gone "as a run continued as new would". A run continued
// as new hands over the amendment waiting for its balance (Pending), the last amendment taken
// and, before the ledger drew refunds, what each payment may still give back (Kept); the resumed
// one is handed the booking alone.
// Resumed while an amendment waits, the balance payment is refunded as a second payment and the
// amendment never lapses (its added night stays held); resumed after a balance was paid, a
// cancel asks the first payment for all of it, beyond its amount.
func TestAResumedBookingKnowsItsPendingAmendmentAndItsBalancePayments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, b := paidStay(t)
	dec10 := b.CheckIn
	a, b, err := d.Store.Amend(ctx, db.AmendParams{BookingID: b.ID, IdempotencyKey: "a1", Actor: "g1", BalanceWindow: time.Hour,
		Change: domain.Change{CheckOut: dec10.AddDays(4)}, RefundOf: func(domain.Booking, int64) int64 { return 0 }})
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentBalanceDue, a.Status, a.Reason)

	pending := resumedWith(t, d.Store, b).Resume.State
	if assert.NotNil(t, pending.Pending, "the amendment waiting for its balance is the resumed workflow's to settle or lapse") {
		assert.Equal(t, a.ID, pending.Pending.ID)
	}

	recordPayment(t, d, b.ID, "pi_balance", a.Difference)
	_, b, err = d.Store.SettleAmendment(ctx, b.ID, a.ID, domain.Payment{ID: "pi_balance", Amount: a.Difference, Currency: "EUR"})
	require.NoError(t, err)
	settled := resumedWith(t, d.Store, b).Resume.State
	assert.Equal(t, a.ID, settled.LastAmendment, "a client's retry of the amendment is not taken again")
	assert.Nil(t, settled.Kept, "the resumed run keeps no draw of its own: the ledger's is read back")
	_, err = d.Store.StartRefund(ctx, b.ID, nil, func(domain.Booking) (int64, error) { return 40000, nil })
	require.NoError(t, err)
	parts, err := d.Store.RefundParts(ctx, b.ID, db.CancelRefundRef(b.ID))
	require.NoError(t, err)
	assert.Equal(t, []domain.Payment{{ID: "pi_balance", Amount: 10000, Currency: "EUR"}, {ID: "pi_1", Amount: 30000, Currency: "EUR"}},
		parts, "a cancel's refund is drawn on each payment up to its own amount, newest first")
}

// TestAResumedBookingGivesBackTheRefundItsLostWorkflowOwedForAnAmendment: an amendment lowered a
// paid booking's price (the database took the refund off paid) and the workflow was gone before
// the provider gave it back. Resumed, the refund runs again from its last attempt: under its key
// when its outcome was open, with a new one after a failure, not at all once one succeeded.
func TestAResumedBookingGivesBackTheRefundItsLostWorkflowOwedForAnAmendment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, b := paidStay(t)
	dec10 := b.CheckIn
	a, b, err := d.Store.Amend(ctx, db.AmendParams{BookingID: b.ID, IdempotencyKey: "down", Actor: "g1", BalanceWindow: time.Hour,
		Change: domain.Change{CheckOut: dec10.AddDays(2)}, RefundOf: func(_ domain.Booking, fallsBy int64) int64 { return fallsBy }})
	require.NoError(t, err)
	require.Equal(t, domain.AmendmentApplied, a.Status, a.Reason)
	require.Positive(t, a.Refund)

	restart := resumedWith(t, d.Store, b).Resume.Restart
	require.Len(t, restart, 1, "the refund nobody gave back")
	assert.Equal(t, fmt.Sprintf("amendment-%d", a.ID), restart[0].Step, "the step its keys were made with")
	assert.Equal(t, domain.Payment{ID: "pi_1", Amount: a.Refund, Currency: "EUR"}, restart[0].Payment)
	assert.Equal(t, 1, restart[0].FirstAttempt)

	attempt := func(n int, status string) {
		_, err := d.Pool.Exec(ctx, `INSERT INTO refunds (id, booking_id, payment_id, amount, currency, reason, status)
			VALUES ($1, $2, 'pi_1', $3, 'EUR', 'amendment', $4)`, fmt.Sprintf("%s/amendment-%d/%d", b.ID, a.ID, n), b.ID, a.Refund, status)
		require.NoError(t, err)
	}
	attempt(1, "failed")
	restart = resumedWith(t, d.Store, b).Resume.Restart
	require.Len(t, restart, 1)
	assert.Equal(t, 2, restart[0].FirstAttempt, "a failed attempt is followed by a new one")
	attempt(2, "succeeded")
	assert.Empty(t, resumedWith(t, d.Store, b).Resume.Restart, "given back: nothing to run again")
}
