package activities_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// reconciliation is a Reconciliation on d that delivers to a list instead of a workflow.
type reconciliation struct {
	activities.Reconciliation
	provider  *testsuite.ScriptedProvider
	mu        sync.Mutex
	delivered []string // event ids
}

func newReconciliation(d *testsuite.Database) *reconciliation {
	r := &reconciliation{provider: &testsuite.ScriptedProvider{}}
	r.Reconciliation = activities.Reconciliation{Store: d.Store, Provider: r.provider,
		Deliver: func(_ context.Context, ev domain.PaymentEvent) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.delivered = append(r.delivered, ev.EventID)
			return nil
		}}
	return r
}

// paid lists a payment as the provider's, succeeded ago.
func (r *reconciliation) paid(id, bookingID string, amount int64, ago time.Duration) {
	r.provider.Paid(payments.PaymentRecord{ID: id, BookingID: bookingID, Amount: amount, Currency: "EUR",
		SucceededAt: time.Now().Add(-ago)})
}

// recorded records a payment's success as the webhook handler does, received ago.
func recorded(t *testing.T, d *testsuite.Database, eventID, id, bookingID string, amount int64, ago time.Duration) {
	t.Helper()
	ctx := context.Background()
	_, err := d.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: eventID, Type: "payment_intent.succeeded",
		BookingID: bookingID, PaymentID: id, Succeeded: true, Amount: amount, Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE payment_events SET received_at = now() - $2::interval WHERE event_id = $1`, eventID, ago)
	require.NoError(t, err)
}

// TestTheReconciliationRecordsWhatItNeverHeardOfAndDeliversWhatNeverArrived pins the
// reconciliation's findings without Temporal: a payment bookflow never heard of is recorded and
// delivered (recovered); one recorded and never delivered is delivered; one delivered, and one
// that succeeded a minute ago, are left alone; one without a booking id is kept for finance. A
// second run does nothing.
func TestTheReconciliationRecordsWhatItNeverHeardOfAndDeliversWhatNeverArrived(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	r := newReconciliation(d)
	r.paid("pi_lost", "booking-lost", 5000, time.Hour)
	r.paid("pi_undelivered", "booking-undelivered", 5000, time.Hour)
	recorded(t, d, "evt_undelivered", "pi_undelivered", "booking-undelivered", 5000, time.Hour)
	r.paid("pi_handled", "booking-handled", 5000, time.Hour)
	recorded(t, d, "evt_handled", "pi_handled", "booking-handled", 5000, time.Hour)
	require.NoError(t, d.Store.MarkEventDelivered(ctx, "evt_handled"))
	r.paid("pi_young", "booking-young", 5000, time.Minute)
	r.paid("pi_anonymous", "", 5000, time.Hour)

	report, err := r.Reconcile(ctx, activities.ReconcileInput{})
	require.NoError(t, err)
	assert.Equal(t, 5, report.Checked)
	assert.Equal(t, []string{"pi_lost"}, report.Recovered)
	assert.Equal(t, []string{"pi_undelivered"}, report.Redelivered)
	assert.Equal(t, []string{"pi_anonymous"}, report.Unprocessable)
	assert.Empty(t, report.Failed)
	assert.ElementsMatch(t, []string{"reconcile-pi_lost", "evt_undelivered"}, r.delivered)

	again, err := r.Reconcile(ctx, activities.ReconcileInput{})
	require.NoError(t, err)
	assert.Empty(t, again.Recovered)
	assert.Empty(t, again.Redelivered)
	assert.Empty(t, again.Unprocessable)
	assert.Len(t, r.delivered, 2, "nothing delivered twice")
}

// TestTheReconciliationReportsWhatTheLedgerCapturedOtherwise: the provider's record is held to
// the money ledger's captured entries. A payment recorded with 5000 that the provider lists as
// 7000 received, and one whose succeeded row was written without its ledger entries (restored
// with the triggers off), are reported as mismatched, and nothing is delivered or recorded again;
// a payment the ledger captured as listed is not reported. The row-based reconciliation found
// each of them handled.
func TestTheReconciliationReportsWhatTheLedgerCapturedOtherwise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testsuite.NewDatabase(t)
	r := newReconciliation(d)
	for _, p := range []struct {
		id             string
		amount, listed int64
	}{{"pi_agrees", 5000, 5000}, {"pi_more", 5000, 7000}} {
		recorded(t, d, "evt_"+p.id, p.id, "booking-"+p.id, p.amount, time.Hour)
		require.NoError(t, d.Store.MarkEventDelivered(ctx, "evt_"+p.id))
		r.paid(p.id, "booking-"+p.id, p.listed, time.Hour)
	}
	_, err := d.Pool.Exec(ctx, `SET session_replication_role = replica;
		INSERT INTO payments (payment_id, booking_id, amount, currency, status, succeeded_at)
			VALUES ('pi_restored', 'booking-restored', 5000, 'EUR', 'succeeded', now() - interval '1 hour');
		SET session_replication_role = DEFAULT`)
	require.NoError(t, err)
	r.paid("pi_restored", "booking-restored", 5000, time.Hour)

	report, err := r.Reconcile(ctx, activities.ReconcileInput{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"pi_more", "pi_restored"}, report.Mismatched)
	assert.Empty(t, report.Recovered)
	assert.Empty(t, report.Redelivered)
	assert.Empty(t, r.delivered)
	var events int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM payment_events WHERE event_id LIKE 'reconcile-%'`).Scan(&events))
	assert.Zero(t, events, "nothing recorded again")
}
