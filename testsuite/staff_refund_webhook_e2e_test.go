package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// workflowClosed reports whether workflow id has closed.
func workflowClosed(t *testing.T, sys *testsuite.System, id string) bool {
	t.Helper()
	d, err := sys.Temporal.DescribeWorkflow(context.Background(), id, "")
	return err == nil && d.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// refundSettled is the provider's webhook saying refund refundID of payment pi succeeded.
func refundSettled(eventID, refundID, pi, bookingID string, amount int64) []byte {
	return payments.EventPayload(eventID, "refund.updated", map[string]any{"id": refundID, "object": "refund",
		"amount": amount, "currency": "eur", "status": "succeeded", "payment_intent": pi,
		"metadata": map[string]string{"bookingId": bookingID}}, time.Now())
}

// paidNoShow is a paid venue order at venue that became a NO_SHOW, in a system with the late
// window given whose provider leaves the n-th refund request (from 1) pending when pending says.
func paidNoShow(t *testing.T, venue string, lateWindow time.Duration, pending func(n int) bool) (
	*testsuite.System, *testsuite.ScriptedProvider, string, string) {
	t.Helper()
	provider := &testsuite.ScriptedProvider{}
	provider.SetAnswer(func(n int, r payments.RefundRequest) (payments.Refund, error) {
		status := payments.RefundSucceeded
		if pending(n) {
			status = payments.RefundPending // settled later, by webhook
		}
		return payments.Refund{ID: "re_" + r.IdempotencyKey, Status: status}, nil
	})
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider, NoShowAfter: 2 * time.Second,
		LateWindow: lateWindow})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, venue, day, 24)
	res := placeOrder(t, sys, venue, sys.Customer("guest"), "o1", hourLine("court-1", day, 9, 1, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	pi := "pi_" + venue + "_" + sys.ID
	payAndConfirm(t, sys, id, 2000, "evt_"+venue+"_"+sys.ID, pi)
	awaitStatus(t, sys, id, "NO_SHOW")
	return sys, provider, id, pi
}

// TestAStaffRefundThatThePaymentProviderSettlesLaterEndsOnItsWebhook: a no-show's workflow has
// closed, so the refund staff give the next day runs in the booking's StaffRefund workflow. The
// provider leaves it pending and reports it succeeded later by webhook: the webhook reaches the
// StaffRefund workflow, which ends at once, never waiting for its hourly lookup at the provider.
func TestAStaffRefundThatThePaymentProviderSettlesLaterEndsOnItsWebhook(t *testing.T) {
	t.Parallel()
	sys, provider, id, pi := paidNoShow(t, "v-sr-hook", time.Second, func(int) bool { return true })
	require.Eventually(t, func() bool { return workflowClosed(t, sys, id) }, 30*time.Second, 100*time.Millisecond,
		"the no-show's workflow closes")

	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("late-hook"),
		map[string]any{"amount": 800, "currency": "EUR", "reason": "the guest was in hospital"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	var refundID string
	require.Eventually(t, func() bool {
		return sys.DB.Pool.QueryRow(context.Background(), `SELECT provider_refund_id FROM refunds
			WHERE booking_id = $1 AND status = 'pending'`, id).Scan(&refundID) == nil
	}, 20*time.Second, 50*time.Millisecond, "the refund is pending at the provider")
	staffRefund := domain.StaffRefundWorkflowID(id)
	require.False(t, workflowClosed(t, sys, staffRefund), "the StaffRefund workflow waits for the provider's word")

	require.Equal(t, http.StatusOK, sys.Webhook(t, refundSettled("evt_re_"+sys.ID, refundID, pi, id, 800),
		time.Now()).Status)
	require.Eventually(t, func() bool { return workflowClosed(t, sys, staffRefund) }, 20*time.Second,
		100*time.Millisecond, "the StaffRefund workflow never heard the webhook: it waits for its lookup an hour later")
	awaitRefunded(t, sys, id, 800)
	assert.Len(t, provider.Requests(), 1, "asked once")
	assert.Empty(t, provider.Lookups(), "settled by the webhook, never looked up")
	checkInvariants(t, sys)
}
