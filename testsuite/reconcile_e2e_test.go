package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

// TestTheReconciliationDeliversPaymentsWhoseWebhooksWereLost: the provider took payments whose
// webhooks never reached bookflow. Before the reconciliation bookflow has no record of them;
// after a ReconcilePayments workflow, the booking paid in time is confirmed, the payment for a
// booking never held is refunded, the one without a booking id is kept for finance, the one
// recorded and never delivered is delivered, the one already handled and the one that succeeded
// a minute ago (its webhook may still come) are left alone. The provider's own webhook arriving
// afterwards, and a second run, change nothing.
func TestTheReconciliationDeliversPaymentsWhoseWebhooksWereLost(t *testing.T) {
	t.Parallel()
	provider := &testsuite.ScriptedProvider{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, HoldTTL: 2 * time.Second})
	ctx := context.Background()
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-recon", "double", stay, 5)
	paid := func(pi, bookingID string, amount int64, ago time.Duration) {
		provider.Paid(payments.PaymentRecord{ID: pi, BookingID: bookingID, Amount: amount, Currency: "EUR",
			SucceededAt: time.Now().Add(-ago)})
	}

	lost, total := holdRoom(t, sys, "h-recon", "lost", stay, 1)
	paid("pi_lost", lost, total, time.Hour) // the guest paid; the webhook never came
	handled, _ := holdRoom(t, sys, "h-recon", "handled", stay, 1)
	payAndConfirm(t, sys, handled, total, "evt_handled", "pi_handled")
	paid("pi_handled", handled, total, time.Hour)
	undelivered, _ := holdRoom(t, sys, "h-recon", "undelivered", stay, 1)
	paid("pi_undelivered", undelivered, total, time.Hour)
	// Recorded an hour ago as the webhook handler does, then the process died before handing it on.
	_, err := sys.DB.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: "evt_undelivered", Type: "payment_intent.succeeded",
		BookingID: undelivered, PaymentID: "pi_undelivered", Succeeded: true, Amount: total, Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
	_, err = sys.DB.Pool.Exec(ctx, `UPDATE payment_events SET received_at = now() - interval '1 hour' WHERE event_id = 'evt_undelivered'`)
	require.NoError(t, err)
	young, _ := holdRoom(t, sys, "h-recon", "young", stay, 1)
	paid("pi_young", young, total, time.Minute)
	ghost := sys.BookingID(sys.Customer("guest"), sys.Customer("guest"), "never-held")
	paid("pi_ghost", ghost, 7000, time.Hour)
	paid("pi_anonymous", "", 5000, time.Hour)

	awaitStatus(t, sys, lost, "EXPIRED")
	awaitStatus(t, sys, undelivered, "EXPIRED")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM payments WHERE payment_id IN ('pi_lost', 'pi_ghost', 'pi_anonymous')`),
		"before the reconciliation bookflow knows nothing of them")

	run, err := sys.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "reconcile-" + sys.ID, TaskQueue: sys.TaskQueue},
		workflows.ReconcilePaymentsWorkflowName, activities.ReconcileInput{})
	require.NoError(t, err)
	var report activities.ReconcileReport
	require.NoError(t, run.Get(ctx, &report))
	assert.Equal(t, 6, report.Checked)
	assert.ElementsMatch(t, []string{"pi_lost", "pi_ghost"}, report.Recovered)
	assert.Equal(t, []string{"pi_undelivered"}, report.Redelivered)
	assert.Equal(t, []string{"pi_anonymous"}, report.Unprocessable)
	assert.Empty(t, report.Mismatched, "the ledger captured what the provider lists")
	assert.Empty(t, report.Failed)

	// The late payments take their nights again (they are free) inside the late window.
	awaitStatus(t, sys, lost, "CONFIRMED")
	awaitStatus(t, sys, undelivered, "CONFIRMED")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM payments WHERE payment_id = 'pi_young'`),
		"a payment a minute old is left to its webhook")
	refunded := func() (n int) {
		for _, r := range provider.Requests() {
			if r.PaymentID == "pi_ghost" && r.Amount == 7000 {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return refunded() == 1 }, 20*time.Second, 100*time.Millisecond,
		"the payment for a booking never held is refunded")
	finance := sys.As(t, domain.Principal{Subject: "ana@finance", Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodGet, "/api/v1/staff/webhooks/unprocessable", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "reconcile-pi_anonymous", "kept for finance")
	audited := `SELECT count(*) FROM audit_log WHERE action = 'reconcile-payment' AND actor = '` + activities.ReconcilerActor + `'`
	assert.Equal(t, 4, count(t, sys, audited), "each delivery, and the payment kept for finance, audited")

	// The provider's own webhooks finally arrive: answered, never delivered again.
	for _, late := range []struct{ pi, booking string }{{"pi_lost", lost}, {"pi_ghost", ghost}} {
		res := sys.Webhook(t, testsuite.PaymentEvent("evt_late_"+late.pi, late.pi, late.booking, total, "EUR"), time.Now())
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		assert.Equal(t, true, res.Body["duplicate"], "%s: %s", late.pi, res.Raw)
	}
	again, err := worker.NewReconciliation(sys.Temporal, sys.DB.Store, provider, sys.TaskQueue).Reconcile(ctx, activities.ReconcileInput{})
	require.NoError(t, err)
	require.False(t, again.Skipped, "the first run left no lock behind")
	assert.Equal(t, 6, again.Checked)
	assert.Empty(t, again.Recovered, "a second run recovers nothing")
	assert.Empty(t, again.Redelivered)
	assert.Empty(t, again.Unprocessable, "a payment kept for finance is kept once")
	assert.Empty(t, again.Mismatched)
	assert.Equal(t, 4, count(t, sys, audited))
	time.Sleep(time.Second)
	assert.Equal(t, 1, refunded(), "nothing refunded twice")
	assert.Equal(t, "CONFIRMED", bookingStatus(t, sys, lost))
	checkInvariants(t, sys)
}
