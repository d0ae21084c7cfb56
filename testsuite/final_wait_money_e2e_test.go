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

// TestAGoodwillRefundIsGivenWhileTheBookingsWorkflowFinishesItsRefunds: a no-show's goodwill
// refund asked in its late window is given by its own workflow, and one asked once the window
// has passed, while that workflow still waits for the first refund's provider, is given by the
// StaffRefund workflow (before, 409 "the booking has ended" until the first refund settled),
// as is one asked after the workflow closed. A desk payment and a price change answer 409 in
// each of the three, as the booking's state says.
func TestAGoodwillRefundIsGivenWhileTheBookingsWorkflowFinishesItsRefunds(t *testing.T) {
	t.Parallel()
	const lateWindow = 3 * time.Second
	sys, provider, id, pi := paidNoShow(t, "v-ending", lateWindow, func(n int) bool { return n == 1 })
	admin := sys.As(t, domain.Principal{Subject: "admin-" + sys.ID, Roles: []domain.Role{domain.RoleAdmin}})
	refund := func(key string, amount int64) testsuite.Response {
		return admin.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed(key),
			map[string]any{"amount": amount, "currency": "EUR", "reason": "goodwill: the lights failed"})
	}
	otherMoney := func(when string) {
		r := admin.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("desk-"+when),
			map[string]any{"amount": 100, "currency": "EUR", "method": "cash"})
		assert.Equal(t, http.StatusConflict, r.Status, "%s: nothing is due: %s", when, r.Raw)
		r = admin.Do(t, http.MethodPut, "/api/v1/staff/bookings/"+id+"/price", nil,
			map[string]any{"total": 100, "currency": "EUR", "reason": "only a hold's"})
		assert.Equal(t, http.StatusConflict, r.Status, "%s: not a hold: %s", when, r.Raw)
	}

	res := refund("in-window", 100)
	require.Equal(t, http.StatusOK, res.Status, "in the late window: %s", res.Raw)
	otherMoney("in-window")
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'pending'`, id) == 1
	}, 20*time.Second, 50*time.Millisecond, "the first refund is pending at the provider")

	time.Sleep(lateWindow + time.Second) // the window has passed; the workflow waits for the first refund
	require.False(t, workflowClosed(t, sys, id), "the booking's workflow waits for its refund's provider")
	res = refund("ending", 300)
	require.Equal(t, http.StatusOK, res.Status, "past the window, the workflow still running: %s", res.Raw)
	assert.Equal(t, "NO_SHOW", res.Body["status"])
	again := refund("ending", 300)
	require.Equal(t, http.StatusOK, again.Status, "a retry under its key: %s", again.Raw)
	otherMoney("ending")
	require.Eventually(t, func() bool { return workflowClosed(t, sys, domain.StaffRefundWorkflowID(id)) },
		20*time.Second, 100*time.Millisecond, "the StaffRefund workflow gave it and closed")
	require.False(t, workflowClosed(t, sys, id), "the booking's workflow still waits for its own refund")

	var refundID string
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT provider_refund_id FROM refunds
		WHERE booking_id = $1 AND status = 'pending'`, id).Scan(&refundID))
	require.Equal(t, http.StatusOK, sys.Webhook(t, refundSettled("evt_ending_re_"+sys.ID, refundID, pi, id, 100),
		time.Now()).Status)
	require.Eventually(t, func() bool { return workflowClosed(t, sys, id) }, 20*time.Second, 100*time.Millisecond,
		"the booking's workflow closes once its refund settled")
	res = refund("closed", 50)
	require.Equal(t, http.StatusOK, res.Status, "after the close: %s", res.Raw)
	otherMoney("closed")
	awaitRefunded(t, sys, id, 450)
	assert.Len(t, provider.Requests(), 3, "each refund asked once")
	assert.Equal(t, float64(1550), staffView(t, sys, id).Body["paid"], "the booking keeps the rest")
	checkInvariants(t, sys)
}

// TestAnOperatorRetryReachesAStuckGoodwillRefundBesideTheBookingsPendingOne: a no-show's own
// refund is pending at the provider when, its late window over, a goodwill refund is given by
// the StaffRefund workflow running beside the booking's, and the provider declines it until it
// is stuck. An operator's retry reaches the stuck refund (before, the booking's workflow, whose
// refund is not stuck, answered 409 not_stuck and the retry never went further), and the refund
// is given once the provider accepts it.
func TestAnOperatorRetryReachesAStuckGoodwillRefundBesideTheBookingsPendingOne(t *testing.T) {
	t.Parallel()
	const lateWindow = 3 * time.Second
	sys, provider, id, pi := paidNoShow(t, "v-stuck-beside", lateWindow, func(n int) bool { return n == 1 })
	admin := sys.As(t, domain.Principal{Subject: "admin-" + sys.ID, Roles: []domain.Role{domain.RoleAdmin}})
	res := admin.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("in-window"),
		map[string]any{"amount": 100, "currency": "EUR", "reason": "goodwill: the lights failed"})
	require.Equal(t, http.StatusOK, res.Status, "in the late window: %s", res.Raw)
	var refundID string
	require.Eventually(t, func() bool {
		return sys.DB.Pool.QueryRow(context.Background(), `SELECT provider_refund_id FROM refunds
			WHERE booking_id = $1 AND status = 'pending'`, id).Scan(&refundID) == nil
	}, 20*time.Second, 50*time.Millisecond, "the booking's own refund is pending at the provider")

	provider.SetAnswer(func(int, payments.RefundRequest) (payments.Refund, error) {
		return payments.Refund{}, fmt.Errorf("%w: insufficient balance", payments.ErrDeclined)
	})
	time.Sleep(lateWindow + time.Second) // the window has passed; the workflow waits for its refund
	require.False(t, workflowClosed(t, sys, id), "the booking's workflow waits for its refund's provider")
	res = admin.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("goodwill"),
		map[string]any{"amount": 300, "currency": "EUR", "reason": "goodwill: the court was flooded"})
	require.Equal(t, http.StatusOK, res.Status, "past the window: %s", res.Raw)
	staffRefund := domain.StaffRefundWorkflowID(id)
	// The StaffRefund workflow backs off by the workflow default (a minute, doubling), not the
	// test system's REFUND_BACKOFF: its three declines take about three minutes.
	require.Eventually(t, func() bool { return stuckState(t, sys, staffRefund) }, 5*time.Minute,
		time.Second, "the goodwill refund is stuck in the StaffRefund workflow")
	require.False(t, stuckState(t, sys, id), "the booking's own refund is pending, not stuck")
	declined := len(provider.Requests())

	provider.SetAnswer(nil) // the provider accepts from now on
	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refund/retry", nil,
		map[string]any{"reason": "the balance was topped up"})
	require.Equal(t, http.StatusOK, res.Status, "the retry reaches the StaffRefund workflow's stuck refund: %s", res.Raw)
	require.Eventually(t, func() bool { return workflowClosed(t, sys, staffRefund) }, 20*time.Second,
		100*time.Millisecond, "the goodwill refund is given and the StaffRefund workflow closes")
	assert.Len(t, provider.Requests(), declined+1, "the retry asked the provider once more")
	require.False(t, workflowClosed(t, sys, id), "the booking's workflow still waits for its own refund")

	require.Equal(t, http.StatusOK, sys.Webhook(t, refundSettled("evt_beside_re_"+sys.ID, refundID, pi, id, 100),
		time.Now()).Status)
	require.Eventually(t, func() bool { return workflowClosed(t, sys, id) }, 20*time.Second, 100*time.Millisecond,
		"the booking's workflow closes once its refund settled")
	awaitRefunded(t, sys, id, 400)
	entries := sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/audit", nil).Body["entries"].([]any)
	var retries int
	for _, e := range entries {
		if e.(map[string]any)["action"] == "retry-refund" {
			retries++
		}
	}
	assert.Equal(t, 1, retries, "the retry is in the audit log: %v", entries)
	checkInvariants(t, sys)
}
