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

// waitingAtTheDesk waits for booking id's refund waiting at the desk (its saga's attempt, a
// moment after what asked it) and returns its id.
func waitingAtTheDesk(t *testing.T, desk testsuite.Caller, id string) string {
	t.Helper()
	var refundID string
	require.Eventually(t, func() bool {
		for _, r := range desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/payments", nil, nil).Body["refunds"].([]any) {
			if r := r.(map[string]any); r["status"] == "pending" && r["method"] != domain.MethodProvider {
				refundID = r["id"].(string)
			}
		}
		return refundID != ""
	}, 20*time.Second, 100*time.Millisecond, "a refund waits at the desk")
	return refundID
}

// handOverAtTheDesk hands booking id's refund waiting at the desk over, as its desk.
func handOverAtTheDesk(t *testing.T, desk testsuite.Caller, id string) {
	t.Helper()
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds/hand-over", nil,
		map[string]any{"refundId": waitingAtTheDesk(t, desk, id)})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
}

// depositInCash is a system with a two-night stay at hotel whose desk took a 50.00 cash deposit,
// which confirmed it: the booking's id and the desk.
func depositInCash(t *testing.T, hotel string) (*testsuite.System, string, testsuite.Caller) {
	t.Helper()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, hotel, "double", stay, 1)
	id, _ := holdRoom(t, sys, hotel, "k1", stay, 1)
	desk := deskOf(t, sys, []string{hotel}, nil)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "CONFIRMED", res.Body["status"], res.Raw)
	return sys, id, desk
}

// TestAGuestsCancelOfACashDepositWaitsAtTheDeskUntilHandedOver (issue 39, defect 1: "never a
// refund recorded that nobody handed over"). The desk takes a 50.00 cash deposit; the guest
// cancels online. The refund of the cash is not recorded as given back: it waits at the desk,
// pending, named by nobody, and the booking stays REFUNDING. The desk hands it over: the refund
// succeeds under its name, the workflow is told at once and the booking is REFUNDED. Another
// desk cannot hand it over again.
//
// The control is the wait before the hand-over: a refund recorded at once (the rule before) would
// have made the booking REFUNDED within it.
func TestAGuestsCancelOfACashDepositWaitsAtTheDeskUntilHandedOver(t *testing.T) {
	t.Parallel()
	sys, id, desk := depositInCash(t, "h-hand")
	res := sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	refundID := waitingAtTheDesk(t, desk, id)
	time.Sleep(3 * time.Second) // the control: recorded at once, the booking would be REFUNDED by now
	assert.Equal(t, "REFUNDING", bookingStatus(t, sys, id), "nobody handed the cash over")
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded'`, id))

	other := sys.As(t, domain.Principal{Subject: "other-desk-" + sys.ID, Roles: []domain.Role{domain.RoleFrontDesk},
		Hotels: []string{"h-hand"}})
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds/hand-over", nil,
		map[string]any{"refundId": refundID, "note": "guest came by"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, []any{"succeeded", "desk-" + sys.ID, "guest came by"},
		[]any{res.Body["status"], res.Body["recordedBy"], res.Body["reference"]})
	awaitStatus(t, sys, id, "REFUNDED") // the workflow was told at once
	res = other.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds/hand-over", nil,
		map[string]any{"refundId": refundID})
	assert.Equal(t, http.StatusConflict, res.Status, "handed over already: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds/hand-over", nil, map[string]any{})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM audit_log WHERE booking_id = $1 AND action = 'refund-handed-over'`, id))
	checkInvariants(t, sys)
}

// TestFinancesRefundOfCashWaitsAtTheDeskUntilHandedOver (issue 39, defect 1: "never a refund
// recorded that nobody handed over"). Finance is not at the hotel's desk: its goodwill refund
// drawn on a cash deposit waits at the desk, named by nobody and in nobody's cash-up, until the
// desk hands it over; the booking keeps its units and what it keeps is lowered at once. A
// reversal by finance moves no money: recorded at once.
//
// The control is the wait: with finance recorded as handing the cash over (the rule before),
// the refund is succeeded, by finance, within it.
func TestFinancesRefundOfCashWaitsAtTheDeskUntilHandedOver(t *testing.T) {
	t.Parallel()
	sys, id, desk := depositInCash(t, "h-fin")
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("mistake"),
		map[string]any{"amount": 700, "currency": "EUR", "method": "card_terminal"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	finance := sys.As(t, domain.Principal{Subject: "fin-" + sys.ID, Roles: []domain.Role{domain.RoleFinance}})
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("undo"),
		map[string]any{"amount": 700, "currency": "EUR", "reason": "entered twice",
			"reverses": domain.DeskPaymentID(id, "mistake")})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitRefunded(t, sys, id, 700) // a reversal hands nothing over: recorded at once
	res = finance.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds", keyed("goodwill"),
		map[string]any{"amount": 2000, "currency": "EUR", "reason": "the lift was out"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "CONFIRMED", res.Body["status"], res.Raw)
	assert.Equal(t, float64(3000), res.Body["paid"], "what the booking keeps is lowered at once")
	refundID := waitingAtTheDesk(t, desk, id)
	time.Sleep(3 * time.Second) // the control: recorded at once in finance's name, it would be succeeded by now
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds WHERE id = $1 AND (status <> 'pending' OR recorded_by IS NOT NULL)`,
		refundID), "nobody handed the cash over")

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/refunds/hand-over", nil, map[string]any{"refundId": refundID})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, []any{"succeeded", "desk-" + sys.ID, domain.MethodCash}, []any{res.Body["status"], res.Body["recordedBy"], res.Body["method"]})
	awaitRefunded(t, sys, id, 2700)
	assert.Equal(t, "CONFIRMED", bookingStatus(t, sys, id))
	checkInvariants(t, sys)
}
