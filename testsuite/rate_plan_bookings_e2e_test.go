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

// planDef is a rate plan's code and its admin API body.
type planDef struct {
	code string
	body map[string]any
}

// putPlans writes a hotel's rate plans through the admin API, in order (parents first).
func putPlans(t *testing.T, sys *testsuite.System, hotel string, plans ...planDef) {
	t.Helper()
	for _, p := range plans {
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/"+hotel+"/rate-plans/"+p.code, p.body)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
}

// TestANonRefundableBookingKeepsItsPlanAndRefundsNothing: a booking held under a non-refundable
// plan derived from BAR is priced by the plan, keeps its code, terms and policy; paid and then
// cancelled far ahead (where BAR's policy would give everything back) it gives nothing back,
// and its nights are on sale again; its customer cannot amend it online; the desk extends it by a
// night priced by the plan.
func TestANonRefundableBookingKeepsItsPlanAndRefundsNothing(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	hotel, stay := "h-nr", stayFromNow(40, 2)
	openRooms(t, sys, hotel, "double", domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}, 2)
	putPlans(t, sys, hotel, planDef{"NR", map[string]any{"name": "Non-refundable", "board": "breakfast",
		"policy": map[string]any{"nonRefundable": true}, "derivedFrom": map[string]any{"parent": "BAR", "percent": "-15"}}})

	body := holdBody(sys.Customer("guest"), hotel, "double", stay, 1)
	body["ratePlan"] = "NR"
	res := hold(t, sys, "nr-1", body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	assert.Equal(t, "NR", res.Body["ratePlan"])
	assert.Equal(t, float64(2*8500), res.Body["price"].(map[string]any)["total"], "15% off 100.00 a night")
	assert.Equal(t, true, res.Body["cancellationPolicy"].(map[string]any)["nonRefundable"])
	assert.Equal(t, float64(domain.NonRefundableHours), res.Body["cancellationPolicy"].(map[string]any)["noRefundHours"],
		"read as refunding nothing by a release that does not know nonRefundable")
	terms := res.Body["planTerms"].(map[string]any)
	assert.Equal(t, "breakfast", terms["board"])
	assert.Equal(t, map[string]any{"kind": "full"}, terms["payment"])

	res = sys.Guest(t, sys.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/amendments", map[string]string{"Idempotency-Key": "nr-amend"},
		map[string]any{"checkOut": stay.CheckOut.AddDays(-1)})
	assert.Equal(t, http.StatusConflict, res.Status, "a non-refundable booking is changed at the desk: %s", res.Raw)
	assert.Contains(t, res.Raw, "non-refundable")
	desk := sys.As(t, domain.Principal{Subject: "desk-1", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{hotel}})
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/amendments", map[string]string{"Idempotency-Key": "nr-desk"},
		map[string]any{"checkOut": stay.CheckOut.AddDays(1)})
	a := amendment(t, res)
	assert.Equal(t, "APPLIED", a["status"], res.Raw)
	assert.EqualValues(t, 3*8500, a["priceAfter"].(map[string]any)["total"], "the night added is priced by the plan, not BAR")

	payAndConfirm(t, sys, id, 3*8500, "evt_nr", "pi_nr")
	res = cancel(t, sys, sys.Customer("guest"), id)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Eventually(t, func() bool {
		s := bookingStatus(t, sys, id)
		return s == "CANCELLED" || s == "REFUNDED"
	}, 20*time.Second, 50*time.Millisecond)
	got := staffView(t, sys, id)
	assert.Equal(t, float64(0), got.Body["refundDue"], got.Raw)
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND amount > 0`, id))
	assert.Equal(t, 2, roomsLeft(t, sys, hotel, "double", domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}),
		"the nights are back on sale")
	checkInvariants(t, sys)
}

// TestAHoldNamesOnlyAPlanItMayBook: an unknown plan is 404; a plan sold direct only, to an
// agent, is a 400 with its reason and no booking; naming BAR is the same request as naming no
// plan (a retry of one with the other is the same booking).
func TestAHoldNamesOnlyAPlanItMayBook(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	hotel, stay := "h-plan-holds", stayFromNow(40, 2)
	openRooms(t, sys, hotel, "double", stay, 2)
	putPlans(t, sys, hotel,
		planDef{"DIRECT", map[string]any{"name": "Direct", "policy": map[string]any{},
			"derivedFrom": map[string]any{"parent": "BAR", "amount": -100}}})
	try := func(key, plan string) testsuite.Response {
		body := holdBody(sys.Customer("guest"), hotel, "double", stay, 1)
		if plan != "" {
			body["ratePlan"] = plan
		}
		return hold(t, sys, key, body)
	}
	res := try("p-1", "NOPE")
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
	res = try("p-3", "bad plan!")
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM bookings`), "nothing was written")

	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/channels/wholesale", map[string]any{"name": "Wholesale"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/agents/max", map[string]any{"channelId": "wholesale", "name": "Max"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	agent := sys.As(t, domain.Principal{Subject: "max-user", Roles: []domain.Role{domain.RoleAgent}, Agent: "max", Channel: "wholesale"})
	res = agent.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": "a-1"},
		map[string]any{"hotelId": hotel, "roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut,
			"quantity": 1, "ratePlan": "DIRECT"})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "not sold through channel wholesale")

	first := try("p-bar", "BAR")
	require.Equal(t, http.StatusCreated, first.Status, first.Raw)
	again := try("p-bar", "")
	require.Contains(t, []int{http.StatusOK, http.StatusCreated}, again.Status, again.Raw)
	assert.Equal(t, first.Body["id"], again.Body["id"])
	assert.Equal(t, "BAR", again.Body["ratePlan"])
}
