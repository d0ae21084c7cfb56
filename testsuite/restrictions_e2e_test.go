package testsuite_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestAChannelManagersRestrictionsThroughTheRoutes: a bulk write closes arrivals of plan NR and
// sets a minimum stay for every plan; explain judges NR's stay refused on that date and BAR's
// (no plan named) by the minimum only; the calendar shows every plan's row and NR's; a bad item
// fails the whole request naming it; a sale rule naming a plan the hotel lacks is 404.
func TestAChannelManagersRestrictionsThroughTheRoutes(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(20, 2)
	openRooms(t, sys, "h-restrict", "double", stay, 2)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-restrict/rate-plans/NR", map[string]any{
		"name": "Non-refundable", "policy": map[string]any{"nonRefundable": true}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	path := "/api/v1/admin/hotels/h-restrict/restrictions"
	res = sys.Admin(t, http.MethodPut, path, map[string]any{"items": []map[string]any{
		{"roomTypeId": "double", "ratePlan": "NR", "from": stay.CheckIn, "to": stay.CheckIn.AddDays(1), "closedToArrival": true},
		{"from": stay.CheckIn, "to": stay.CheckOut, "minStay": 3},
	}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, map[string]any{"written": float64(2), "trimmed": float64(0), "split": float64(0), "ended": float64(0)},
		res.Body["rules"])

	explain := fmt.Sprintf("/api/v1/hotels/h-restrict/availability/explain?roomTypeId=double&checkIn=%s&checkOut=%s",
		stay.CheckIn, stay.CheckOut)
	res = sys.Admin(t, http.MethodGet, explain+"&ratePlan=NR", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "NR", res.Body["ratePlan"])
	assert.Contains(t, res.Body["because"], "closed to arrival on "+stay.CheckIn.String())
	res = sys.Admin(t, http.MethodGet, explain, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "BAR", res.Body["ratePlan"])
	assert.Contains(t, res.Body["because"], "at least 3 nights", "BAR's stay: the minimum, not NR's closed arrival")
	res = sys.Admin(t, http.MethodGet, explain+"&ratePlan=NOPE", nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)

	res = sys.Admin(t, http.MethodGet, path+"?from="+stay.CheckIn.String()+"&to="+stay.CheckOut.String(), nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	rows := res.Body["rows"].([]any)
	require.Len(t, rows, 2, res.Raw)
	every, nr := rows[0].(map[string]any), rows[1].(map[string]any)
	assert.Nil(t, every["ratePlan"])
	assert.Equal(t, "NR", nr["ratePlan"])
	first := nr["days"].([]any)[0].(map[string]any)
	assert.Equal(t, true, first["closedToArrival"])
	assert.Equal(t, float64(3), first["minStay"])
	assert.Equal(t, false, every["days"].([]any)[0].(map[string]any)["closedToArrival"])

	res = sys.Admin(t, http.MethodPut, path, map[string]any{"items": []map[string]any{
		{"from": stay.CheckIn, "to": stay.CheckOut, "closed": true},
		{"from": stay.CheckIn, "to": stay.CheckOut, "minStay": 2, "clear": []string{"minStay"}},
	}})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "item 1")
	res = sys.Admin(t, http.MethodPut, path, map[string]any{"items": []map[string]any{
		{"from": stay.CheckIn, "to": stay.CheckOut, "closed": true},
		{"ratePlan": "NOPE", "from": stay.CheckIn, "to": stay.CheckOut, "closed": true},
	}})
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodGet, explain, nil)
	assert.NotContains(t, res.Body["because"], "stop-sell", "all or nothing")

	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/hotels/h-restrict/sale-rules", map[string]any{
		"kind": "closed_to_arrival", "ratePlan": "NOPE", "from": stay.CheckIn, "to": stay.CheckOut})
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
}
