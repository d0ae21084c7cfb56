package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/testsuite"
)

// paidWithABalance is a confirmed stay paid by pi_first, amended up a night whose balance
// (10000) pi_balance paid: the booking keeps two payments. It returns the booking's id, its first
// price and the longer stay.
func paidWithABalance(t *testing.T, sys *testsuite.System, hotel string) (string, int64, domain.Stay) {
	t.Helper()
	stay := stayFromNow(30, 3)
	longer := domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}
	openRooms(t, sys, hotel, "double", longer, 1)
	id, total := holdRoom(t, sys, hotel, "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_first", "pi_first")
	a := amendment(t, amend(t, sys, id, "a1", map[string]any{"checkOut": longer.CheckOut}))
	require.Equal(t, "BALANCE_DUE", a["status"])
	res := sys.Webhook(t, testsuite.PaymentEvent("evt_balance", "pi_balance", id, 10000, "EUR"), time.Now())
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool { return staffView(t, sys, id).Body["checkOut"] == longer.CheckOut.String() },
		20*time.Second, 50*time.Millisecond, "the balance is paid")
	return id, total, longer
}

// refundRows lists a booking's refund attempts as "id amount status: error", oldest first.
func refundRows(t *testing.T, sys *testsuite.System, id string) []string {
	t.Helper()
	rows, err := sys.DB.Pool.Query(context.Background(), `SELECT id, amount, status, COALESCE(last_error, '') FROM refunds
		WHERE booking_id = $1 ORDER BY created_at, id`, id)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var key, status, why string
		var amount int64
		require.NoError(t, rows.Scan(&key, &amount, &status, &why))
		out = append(out, fmt.Sprintf("%s %d %s: %s", key, amount, status, why))
	}
	require.NoError(t, rows.Err())
	return out
}

// TestAResumedBookingKeepsTheBalanceWhoseEventTheProviderSendsAgain (issue 34, defect 3): the
// balance's webhook reached the workflow, which applied the amendment, but was never marked
// delivered (the API was killed). The workflow is lost and resumed; the provider's retry of the
// balance's event, and of the first payment's, reaches the resumed run, which keeps both
// payments: nothing is refunded and the booking keeps the added night. A cancel then gives both
// back, each from its own payment.
func TestAResumedBookingKeepsTheBalanceWhoseEventTheProviderSendsAgain(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	id, total, longer := paidWithABalance(t, sys, "h-resume-balance")
	_, err := sys.DB.Pool.Exec(context.Background(), `UPDATE payment_events SET delivered_at = NULL WHERE booking_id = $1`, id)
	require.NoError(t, err) // the API was killed between signalling and marking
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "lost"))
	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/resume", nil, map[string]any{"reason": "lost"})
	require.Equal(t, http.StatusAccepted, res.Status, res.Raw)

	for _, ev := range [][]byte{testsuite.PaymentEvent("evt_balance", "pi_balance", id, 10000, "EUR"),
		testsuite.PaymentEvent("evt_first", "pi_first", id, total, "EUR")} {
		res = sys.Webhook(t, ev, time.Now())
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		assert.NotEqual(t, true, res.Body["duplicate"], "delivered again, as it was never marked: %s", res.Raw)
	}
	if !assert.Never(t, func() bool { return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id) > 0 },
		5*time.Second, 100*time.Millisecond) {
		t.Fatalf("a payment the booking keeps is refunded: %v", refundRows(t, sys, id))
	}
	b := staffView(t, sys, id).Body
	assert.Equal(t, "CONFIRMED", b["status"])
	assert.Equal(t, longer.CheckOut.String(), b["checkOut"], "the booking keeps the added night")
	assert.EqualValues(t, total+10000, b["paid"])
	checkInvariants(t, sys)

	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	awaitStatus(t, sys, id, "REFUNDED")
	assert.ElementsMatch(t, []string{
		fmt.Sprintf("%s/refund-pi_balance/1 10000 succeeded: ", id), fmt.Sprintf("%s/refund/1 %d succeeded: ", id, total),
	}, refundRows(t, sys, id), "each payment gives back what it brought, once")
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "resumed-balance-redelivered")
}

// TestARecoveredRefundOfTwoPaymentsGoesOnFromThePaymentItWasLostAt (issue 34, suspicion: "a
// resume restarts a two-payment refund as one payment"): a booking paid by pi_first and a
// balance is cancelled; its refund gives the balance back, then the provider declines
// pi_first's part three times (PAYMENT_STUCK) and the workflow is lost. The recovery goes on
// with pi_first's part after its failed attempts, and asks nothing more of the balance.
func TestARecoveredRefundOfTwoPaymentsGoesOnFromThePaymentItWasLostAt(t *testing.T) {
	t.Parallel()
	provider := &testsuite.ScriptedProvider{}
	provider.SetAnswer(func(_ int, r payments.RefundRequest) (payments.Refund, error) {
		if r.PaymentID == "pi_first" {
			return payments.Refund{}, fmt.Errorf("%w: insufficient balance", payments.ErrDeclined)
		}
		return payments.Refund{ID: "re_" + r.IdempotencyKey, Status: payments.RefundSucceeded}, nil
	})
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Provider: provider})
	id, total, _ := paidWithABalance(t, sys, "h-recover-two")
	require.Equal(t, http.StatusOK, cancel(t, sys, sys.Customer("guest"), id).Status)
	require.Eventually(t, func() bool { return len(provider.Requests()) == 4 && stuckState(t, sys, id) },
		30*time.Second, 100*time.Millisecond, "the balance given back, pi_first's part stuck")
	require.NoError(t, sys.Temporal.TerminateWorkflow(context.Background(), id, "", "lost"))
	provider.SetAnswer(nil)

	finance := sys.As(t, domain.Principal{Subject: "fin", Roles: []domain.Role{domain.RoleFinance}})
	res := finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/recover", nil, map[string]any{"reason": "card fixed"})
	require.Equal(t, http.StatusAccepted, res.Status, res.Raw)
	if !assert.Eventually(t, func() bool { return bookingStatus(t, sys, id) == "REFUNDED" }, 20*time.Second, 100*time.Millisecond) {
		t.Fatalf("the recovery never refunded the booking; its attempts: %v", refundRows(t, sys, id))
	}
	requests := provider.Requests()
	require.Len(t, requests, 5, "the balance once, pi_first's three declines, then one by the recovery")
	assert.Equal(t, id+"/refund/4", requests[4].IdempotencyKey, "the recovery goes on with pi_first's part")
	assert.Equal(t, total, requests[4].Amount)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE payment_id = 'pi_balance'`), "%v", refundRows(t, sys, id))
	checkInvariants(t, sys)
	testsuite.ReplayAndRecord(t, sys.Temporal, domain.RefundRecoveryID(id), "refund-recovery-two-payments")
}
