package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
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
