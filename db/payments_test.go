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

// TestAPaymentIsDeliveredUnderOneEventOnly: a payment's success recorded under a second event id
// (the reconciliation's, then the provider's own) is not delivered again once one was; and an
// event the reconciliation recorded is due at once, so a run that recorded it and failed to
// deliver it delivers it on its retry.
func TestAPaymentIsDeliveredUnderOneEventOnly(t *testing.T) {
	ctx := context.Background()
	store := testsuite.NewDatabase(t).Store
	ev := domain.PaymentEvent{EventID: db.ReconcileEventID("pi_1"), Type: "payment_intent.succeeded", BookingID: "booking-x",
		PaymentID: "pi_1", Succeeded: true, Amount: 100, Currency: "EUR"}
	deliver, err := store.RecordPaymentEvent(ctx, ev, []byte(`{}`))
	require.NoError(t, err)
	assert.True(t, deliver)

	succeeded, due, err := store.PaymentDelivery(ctx, "pi_1", time.Hour)
	require.NoError(t, err)
	assert.True(t, succeeded)
	assert.Equal(t, []string{ev.EventID}, due, "the reconciliation's own event is due without waiting")

	marked, err := store.MarkReconciled(ctx, ev.EventID, db.AuditEntry{Actor: "t", Action: "reconcile-payment", Reason: "test"})
	require.NoError(t, err)
	assert.True(t, marked)
	marked, err = store.MarkReconciled(ctx, ev.EventID, db.AuditEntry{Actor: "t", Action: "reconcile-payment", Reason: "test"})
	require.NoError(t, err)
	assert.False(t, marked, "marked, and audited, once")
	var audited int
	require.NoError(t, store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'reconcile-payment'`).Scan(&audited))
	assert.Equal(t, 1, audited)

	ev.EventID = "evt_provider"
	deliver, err = store.RecordPaymentEvent(ctx, ev, []byte(`{}`))
	require.NoError(t, err)
	assert.False(t, deliver, "the same payment under another event is not delivered again")
	_, due, err = store.PaymentDelivery(ctx, "pi_1", 0)
	require.NoError(t, err)
	assert.Empty(t, due)
}

// TestAFailedPaymentKeptDoesNotHideItsSuccess: a payment kept for finance because its failure
// event had no booking id is still kept again when it later succeeds; its success, kept once.
func TestAFailedPaymentKeptDoesNotHideItsSuccess(t *testing.T) {
	ctx := context.Background()
	store := testsuite.NewDatabase(t).Store
	require.NoError(t, store.RecordUnprocessableEvent(ctx, db.UnprocessableEvent{EventID: "evt_failed",
		Type: "payment_intent.payment_failed", Problem: "no bookingId",
		Payload: []byte(`{"type":"payment_intent.payment_failed","data":{"object":{"id":"pi_2"}}}`)}))
	kept, err := store.UnprocessablePaymentKept(ctx, "pi_2")
	require.NoError(t, err)
	assert.False(t, kept, "only its failure is kept")

	success := db.UnprocessableEvent{EventID: db.ReconcileEventID("pi_2"), Type: "payment_intent.succeeded",
		Problem: "no bookingId", Payload: []byte(`{}`)}
	audit := db.AuditEntry{Actor: "t", Action: "reconcile-payment", Reason: "kept"}
	kept, err = store.KeepUnprocessablePayment(ctx, success, audit)
	require.NoError(t, err)
	assert.True(t, kept)
	kept, err = store.KeepUnprocessablePayment(ctx, success, audit)
	require.NoError(t, err)
	assert.False(t, kept, "kept, and audited, once")
	kept, err = store.UnprocessablePaymentKept(ctx, "pi_2")
	require.NoError(t, err)
	assert.True(t, kept)
}

// TestOneReconciliationAtATime: a run that finds another under way does nothing.
func TestOneReconciliationAtATime(t *testing.T) {
	ctx := context.Background()
	store := testsuite.NewDatabase(t).Store
	var inner bool
	ran, err := store.WithReconcileLock(ctx, func() error {
		var err error
		inner, err = store.WithReconcileLock(ctx, func() error { return nil })
		return err
	})
	require.NoError(t, err)
	assert.True(t, ran)
	assert.False(t, inner, "skipped while another run holds the lock")
	ran, err = store.WithReconcileLock(ctx, func() error { return nil })
	require.NoError(t, err)
	assert.True(t, ran, "the lock is given back")
}

// TestARefundAttemptNeverAsksForMoreThanIsLeftOfItsPayment: two refund steps that together
// would give back more than their payment: the second attempt is recorded as failed and never
// sent, whatever step or saga asks; a retry of the first under its key is not counted twice.
func TestARefundAttemptNeverAsksForMoreThanIsLeftOfItsPayment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testsuite.NewDatabase(t).Store
	_, err := store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: "evt_1", Type: "payment_intent.succeeded",
		BookingID: "booking-x", PaymentID: "pi_1", Succeeded: true, Amount: 10000, Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
	attempt := func(id string, amount int64) db.RefundAttempt {
		a, err := store.BeginRefundAttempt(ctx, db.RefundAttempt{ID: id, BookingID: "booking-x", PaymentID: "pi_1",
			Amount: amount, Currency: "EUR", Reason: "test"})
		require.NoError(t, err)
		return a
	}
	assert.Equal(t, "requested", attempt("booking-x/staff-a/1", 6000).Status)
	assert.Equal(t, "requested", attempt("booking-x/staff-a/1", 6000).Status, "a retry of the same attempt")
	second := attempt("booking-x/refund/1", 6000)
	assert.Equal(t, "failed", second.Status)
	assert.Contains(t, second.LastError, "more than the 4000 left of payment pi_1")
	assert.Equal(t, "requested", attempt("booking-x/refund/2", 4000).Status, "what is left may still be asked")
}

// recordPayment records a succeeded provider payment as its webhook would.
func recordPayment(t *testing.T, d *testsuite.Database, bookingID, id string, amount int64) {
	t.Helper()
	_, err := d.Store.RecordPaymentEvent(context.Background(), domain.PaymentEvent{EventID: "evt_" + id,
		Type: "payment_intent.succeeded", BookingID: bookingID, PaymentID: id, Succeeded: true, Amount: amount, Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
}
