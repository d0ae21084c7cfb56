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
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-hand", "double", stay, 1)
	id, _ := holdRoom(t, sys, "h-hand", "k1", stay, 1)
	desk := deskOf(t, sys, []string{"h-hand"}, nil)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "CONFIRMED", res.Body["status"], res.Raw)

	res = sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", nil, nil)
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
