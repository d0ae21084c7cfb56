package testsuite_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAnAgentDoesNotMoveANonRefundableBookingOffItsPlan: an agent's booking sold non-refundable
// keeps its plan (409 amendment_closed): moved to BAR it could be cancelled for a refund its sale
// never offered. The agent may still change its dates.
func TestAnAgentDoesNotMoveANonRefundableBookingOffItsPlan(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	hotel, stay := "h-agent-nr", stayFromNow(40, 2)
	openRooms(t, sys, hotel, "double", domain.Stay{CheckIn: stay.CheckIn, CheckOut: stay.CheckOut.AddDays(1)}, 2)
	putPlans(t, sys, hotel, planDef{"NR", map[string]any{"name": "Non-refundable", "channels": []string{"*"},
		"policy": map[string]any{"nonRefundable": true}, "derivedFrom": map[string]any{"parent": "BAR", "percent": "-15"}}})
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/channels/wholesale", map[string]any{"name": "Wholesale"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/agents/max", map[string]any{"channelId": "wholesale", "name": "Max"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	agent := sys.As(t, domain.Principal{Subject: "max-user", Roles: []domain.Role{domain.RoleAgent}, Agent: "max", Channel: "wholesale"})
	res = agent.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": "a-nr"},
		map[string]any{"hotelId": hotel, "roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut,
			"quantity": 1, "ratePlan": "NR"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)

	res = agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/amendments", map[string]string{"Idempotency-Key": "a-nr-bar"},
		map[string]any{"ratePlan": "BAR"})
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "amendment_closed")
	res = agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+id+"/amendments", map[string]string{"Idempotency-Key": "a-nr-longer"},
		map[string]any{"checkOut": stay.CheckOut.AddDays(1)})
	a := amendment(t, res)
	assert.Equal(t, "APPLIED", a["status"], res.Raw)
	assert.Equal(t, "NR", staffView(t, sys, id).Body["ratePlan"])
}
