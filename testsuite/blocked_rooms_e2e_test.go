package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestBlockedRoomsFreeRatesAndRuleRefusalsThroughTheAPI: rooms out of order are not sold and
// cannot be blocked over what is sold; a rate of 0 sells only when set free; a direct sale a
// stop-sell refuses names the rule; the stock view shows the stop-sold night closed.
func TestBlockedRoomsFreeRatesAndRuleRefusalsThroughTheAPI(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(30, 3)
	openRooms(t, sys, "h-block", "double", stay, 3)
	path := func(what string) string { return "/api/v1/admin/hotels/h-block/room-types/double/" + what }
	rates := func(rate int64, free bool) testsuite.Response {
		return sys.Admin(t, http.MethodPut, path("rates"), map[string]any{"from": stay.CheckIn, "to": stay.CheckIn.AddDays(1),
			"rate": rate, "currency": "EUR", "free": free})
	}

	res := sys.Admin(t, http.MethodPut, path("blocked-rooms"), map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "blocked": 2})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, 3.0, res.Body["nightsUpdated"])
	assert.Equal(t, 1, roomsLeft(t, sys, "h-block", "double", stay), "searches count the blocked rooms")
	res = hold(t, sys, "k1", holdBody(sys.Customer("g1"), "h-block", "double", stay, 2))
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	res = hold(t, sys, "k2", holdBody(sys.Customer("g2"), "h-block", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, path("blocked-rooms"), map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "blocked": 3})
	assert.Equal(t, http.StatusConflict, res.Status, "a held room cannot be blocked: %s", res.Raw)
	res = sys.Admin(t, http.MethodPut, path("blocked-rooms"), map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "blocked": -1})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	require.Equal(t, http.StatusOK, sys.Admin(t, http.MethodPut, path("blocked-rooms"),
		map[string]any{"from": stay.CheckIn, "to": stay.CheckOut, "blocked": 0}).Status)

	// A rate of 0: refused by the API unless free, refused by the reservation when stored without it.
	assert.Equal(t, http.StatusBadRequest, rates(0, false).Status)
	assert.Equal(t, http.StatusBadRequest, rates(5, true).Status)
	_, err := sys.DB.Pool.Exec(context.Background(), `UPDATE inventory SET rate = 0 WHERE unit_start = $1`, stay.CheckIn.Time())
	require.NoError(t, err)
	res = hold(t, sys, "k3", holdBody(sys.Customer("g3"), "h-block", "double", stay, 1))
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "no rate is set for the night of "+stay.CheckIn.String())
	require.Equal(t, http.StatusOK, rates(0, true).Status)
	res = hold(t, sys, "k4", holdBody(sys.Customer("g4"), "h-block", "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, 2*float64(testsuite.TestRate.Amount), res.Body["price"].(map[string]any)["total"], "the first night is free")

	// A stop-sell of the hotel: a direct sale's refusal names it; the stock view shows the night closed.
	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/hotels/h-block/sale-rules", map[string]any{"kind": "stop_sell",
		"from": stay.CheckIn, "to": stay.CheckIn.AddDays(1), "reason": "event"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	rule := res.Body["id"].(float64)
	res = hold(t, sys, "k5", holdBody(sys.Customer("g5"), "h-block", "double", stay, 1))
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, fmt.Sprintf("sale rule %d (stop_sell): stop-sell (event)", int64(rule)))
	res = sys.Admin(t, http.MethodGet, fmt.Sprintf("/api/v1/admin/hotels/h-block/stock?from=%s&to=%s", stay.CheckIn, stay.CheckOut), nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	nights := res.Body["nights"].([]any)
	first, second := nights[0].(map[string]any), nights[1].(map[string]any)
	assert.Equal(t, true, first["blocked"], "the stop-sold night is closed")
	assert.Equal(t, rule, first["stopSellId"])
	assert.Equal(t, 0.0, first["available"])
	assert.Equal(t, false, second["blocked"])
	sys.DB.AssertInventoryMatchesBookings(t)
}
