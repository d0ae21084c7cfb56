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

// TestAGoodwillRefundOfAPaidDepositBookingOwesNothing: a deposit booking whose rest was paid
// online is paid in full; a goodwill refund staff give it afterwards is money given, not a new
// balance: the guest is not asked for it again, and the balance date passing does not cancel
// the booking. (PlanBalance is total - paid, and a refund that keeps the units lowers paid.)
func TestAGoodwillRefundOfAPaidDepositBookingOwesNothing(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(40, 2)
	id := depositPlanHold(t, sys, "h-dep-gw", "dep-gw", stay)
	_, err := sys.DB.Pool.Exec(context.Background(), `UPDATE bookings SET balance_due_at = now() + interval '12 seconds' WHERE id = $1`, id)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_dep_gw", "pi_dep_gw", id, 5400, "EUR"), time.Now()).Status)
	awaitStatus(t, sys, id, "CONFIRMED")
	require.Equal(t, http.StatusOK, sys.Webhook(t, testsuite.PaymentEvent("evt_rest_gw", "pi_rest_gw", id, 12600, "EUR"), time.Now()).Status)
	awaitPaid(t, sys, id, 18000)

	admin := sys.As(t, domain.Principal{Subject: "admin-" + sys.ID, Roles: []domain.Role{domain.RoleAdmin}})
	res := admin.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("goodwill"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": "goodwill: the lights failed"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitPaid(t, sys, id, 17000)

	guest := sys.Guest(t, sys.Customer("guest"))
	res = guest.Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/payment", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, "the guest paid everything; the goodwill is not owed back: %s", res.Raw)

	time.Sleep(15 * time.Second) // the balance date passes
	assert.Equal(t, "CONFIRMED", bookingStatus(t, sys, id), "a booking paid in full does not lapse")
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM booking_changes WHERE booking_id = $1 AND actor = 'system:plan-balance'`, id))
}
