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

// TestCheckOutEndsTheStayEarlyOrOnTime (issue 39, defect 4): a guest paid four nights from today
// at a hotel whose policy gives all nights not stayed back. Before check-in there is no check-out
// (409). Checked in, the preview says what leaving today does (three nights not stayed, three
// nights given back, nothing due) and changes nothing; the check-out does it: the stay ends
// tomorrow, the refund is given back through the saga, checkedOutAt and its desk are recorded,
// the status stays COMPLETED, and it is audited. Asked again it answers as the first, moving no
// more money. A one-night stay checks out on time: nothing given back.
func TestCheckOutEndsTheStayEarlyOrOnTime(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	night := testsuite.TestRate.Amount
	stay := stayFromNow(0, 4)
	openRooms(t, sys, "h-out", "double", stay, 2)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-out/cancellation-policy",
		map[string]any{"earlyDeparture": domain.EarlyDepartureAll})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	id, total := holdRoom(t, sys, "h-out", "k-out", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_out", "pi_out")
	desk := sys.As(t, domain.Principal{Subject: "desk-out", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-out"}})

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-out", nil, nil)
	require.Equal(t, http.StatusConflict, res.Status, "not checked in: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-in", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	tomorrow := stay.CheckIn.AddDays(1).String()
	res = desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/check-out", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, map[string]any{"checkOut": tomorrow, "early": true, "nightsNotStayed": float64(3), "refund": float64(3 * night),
		"currency": "EUR", "policy": "all", "due": float64(0)}, res.Body)
	assert.Equal(t, stay.CheckOut.String(), desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id, nil, nil).Body["checkOut"],
		"the preview changes nothing")

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-out", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "COMPLETED", res.Body["status"])
	assert.Equal(t, tomorrow, res.Body["checkOut"])
	assert.NotEmpty(t, res.Body["checkedOutAt"])
	assert.Equal(t, "desk-out", res.Body["checkedOutBy"])
	d := res.Body["departure"].(map[string]any)
	assert.Equal(t, []any{true, float64(3), float64(3 * night)}, []any{d["early"], d["nightsNotStayed"], d["refund"]})
	require.Eventually(t, func() bool {
		return count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded' AND amount = $2`,
			id, 3*night) == 1
	}, 20*time.Second, 50*time.Millisecond, "the three nights were given back")
	testsuite.ReplayAndRecord(t, sys.Temporal, id, "hotel-checked-out-early-refunded")

	again := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-out", nil, nil)
	require.Equal(t, http.StatusOK, again.Status, again.Raw)
	assert.Equal(t, res.Body["checkedOutAt"], again.Body["checkedOutAt"], "asked again: the first check-out")
	assert.Equal(t, false, again.Body["departure"].(map[string]any)["early"])
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id), "no more money moved")
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM audit_log WHERE booking_id = $1 AND action = 'check-out'`, id))
	customer := sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodGet, "/api/v1/bookings/"+id, nil, nil)
	assert.NotContains(t, customer.Raw, "desk-out", "the guest is not told which staff member")

	// A one-night stay checks out on its last night: nothing more.
	one := stayFromNow(0, 1)
	short, price := holdRoom(t, sys, "h-out", "k-short", one, 1)
	payAndConfirm(t, sys, short, price, "evt_short", "pi_short")
	require.Equal(t, http.StatusOK, desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+short+"/check-in", nil, nil).Status)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+short+"/check-out", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, false, res.Body["departure"].(map[string]any)["early"])
	assert.Equal(t, one.CheckOut.String(), res.Body["checkOut"])
	assert.Equal(t, float64(price), res.Body["paid"], "nothing given back")
	checkInvariants(t, sys)
}
