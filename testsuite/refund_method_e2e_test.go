package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDeskHandsARefundOverAsItChooses (issue 39, defect 9): a guest who paid online takes a
// 30.00 goodwill refund in cash at the desk: the booking's workflow records it as made at the
// desk in cash by the receptionist, never sent to the provider, and the ledger agrees. A refund
// "only to the card" of a stay paid in cash at the desk is refused, nothing given back; the same
// key with another method is another request (422).
func TestTheDeskHandsARefundOverAsItChooses(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(1, 2)
	openRooms(t, sys, "h-method", "double", stay, 2)
	id, total := holdRoom(t, sys, "h-method", "k-online", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_method", "pi_method")
	desk := sys.As(t, domain.Principal{Subject: "desk-method", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-method"}})

	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("gw-cash"),
		map[string]any{"amount": 3000, "currency": "EUR", "reason": "noisy room", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND payment_id = 'pi_method' AND amount = 3000
			AND method = 'cash' AND status = 'succeeded' AND recorded_by = 'desk-method' AND provider_refund_id IS NULL`, id) == 1
	}, 20*time.Second, 50*time.Millisecond, "handed over in cash at the desk")
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("gw-cash"),
		map[string]any{"amount": 3000, "currency": "EUR", "reason": "noisy room", "method": "card_terminal"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Status, "the same key with another method: %s", res.Raw)

	held, _ := holdRoom(t, sys, "h-method", "k-desk", stay, 1)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+held+"/desk-payments", keyed("cash-all"),
		map[string]any{"amount": total, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+held+"/refunds", keyed("to-card"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": "to the card", "method": "provider"})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Equal(t, float64(total), staffView(t, sys, held).Body["paid"], "nothing given back")
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+held+"/refunds", keyed("bad"),
		map[string]any{"amount": 1000, "currency": "EUR", "reason": "x", "method": "cheque"})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	checkInvariants(t, sys)
}
