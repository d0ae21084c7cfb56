package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/activities"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// TestTheReconciliationDeliversPaymentsWhoseWebhooksWereLost: the provider took four payments
// whose webhooks never reached bookflow, and one that did. Before the reconciliation bookflow
// has no record of them; after it, the booking paid in time is confirmed, the payment for a
// booking that never existed is refunded, the one without a booking id is kept for finance, the
// one recorded and never delivered is delivered, and the one already handled is left alone. A
// second run changes nothing.
func TestTheReconciliationDeliversPaymentsWhoseWebhooksWereLost(t *testing.T) {
	t.Parallel()
	provider := &testsuite.ScriptedProvider{}
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, HoldTTL: 2 * time.Second})
	ctx := context.Background()
	stay := stayFromNow(30, 2)
	openRooms(t, sys, "h-recon", "double", stay, 5)
	paid := func(pi, bookingID string, amount int64) {
		provider.Paid(payments.PaymentRecord{ID: pi, BookingID: bookingID, Amount: amount, Currency: "EUR", Created: time.Now()})
	}

	lost, total := holdRoom(t, sys, "h-recon", "lost", stay, 1)
	paid("pi_lost", lost, total) // the guest paid; the webhook never came
	handled, _ := holdRoom(t, sys, "h-recon", "handled", stay, 1)
	payAndConfirm(t, sys, handled, total, "evt_handled", "pi_handled")
	paid("pi_handled", handled, total)
	undelivered, _ := holdRoom(t, sys, "h-recon", "undelivered", stay, 1)
	paid("pi_undelivered", undelivered, total)
	// Recorded as the webhook handler does, then the process died before handing it on.
	_, err := sys.DB.Store.RecordPaymentEvent(ctx, domain.PaymentEvent{EventID: "evt_undelivered", Type: "payment_intent.succeeded",
		BookingID: undelivered, PaymentID: "pi_undelivered", Succeeded: true, Amount: total, Currency: "EUR"}, []byte(`{}`))
	require.NoError(t, err)
	ghost := sys.BookingID(sys.Customer("guest"), sys.Customer("guest"), "never-held")
	paid("pi_ghost", ghost, 7000)
	paid("pi_anonymous", "", 5000)

	awaitStatus(t, sys, lost, "EXPIRED")
	awaitStatus(t, sys, undelivered, "EXPIRED")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM payments WHERE payment_id IN ('pi_lost', 'pi_ghost', 'pi_anonymous')`),
		"before the reconciliation bookflow knows nothing of them")

	reconciliation := worker.NewReconciliation(sys.Temporal, sys.DB.Store, provider, sys.TaskQueue)
	report, err := reconciliation.Reconcile(ctx, activities.ReconcileInput{Settle: time.Nanosecond})
	require.NoError(t, err)
	assert.Equal(t, 5, report.Checked)
	assert.ElementsMatch(t, []string{"pi_lost", "pi_ghost"}, report.Recovered)
	assert.Equal(t, []string{"pi_undelivered"}, report.Redelivered)
	assert.Equal(t, []string{"pi_anonymous"}, report.Unprocessable)

	// The late payments take their nights again (they are free) inside the late window.
	awaitStatus(t, sys, lost, "CONFIRMED")
	awaitStatus(t, sys, undelivered, "CONFIRMED")
	require.Eventually(t, func() bool {
		for _, r := range provider.Requests() {
			if r.PaymentID == "pi_ghost" && r.Amount == 7000 {
				return true
			}
		}
		return false
	}, 20*time.Second, 100*time.Millisecond, "the payment for a booking that never existed is refunded")
	finance := sys.As(t, domain.Principal{Subject: "ana@finance", Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodGet, "/api/v1/staff/webhooks/unprocessable", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "reconcile-pi_anonymous", "kept for finance")
	assert.Equal(t, 3, count(t, sys, `SELECT count(*) FROM audit_log WHERE action = 'reconcile-payment' AND actor = $1`,
		activities.ReconcilerActor), "each delivery audited")

	again, err := reconciliation.Reconcile(ctx, activities.ReconcileInput{Settle: time.Nanosecond})
	require.NoError(t, err)
	assert.Empty(t, again.Recovered, "a second run recovers nothing")
	assert.Empty(t, again.Redelivered)
	assert.Len(t, provider.Requests(), 1, "nothing refunded twice")
	checkInvariants(t, sys)
}
