package testsuite_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestAnAgentsOwnAllocationThroughTheAPI: 4 rooms, 2 of them agent lena's own; lena's sale takes
// them, the allocation cannot be deleted while they are sold, and can once they are released.
func TestAnAgentsOwnAllocationThroughTheAPI(t *testing.T) {
	t.Parallel()
	w := newSupplierWorld(t, "direct_procure", testsuite.SystemOptions{})
	sys := w.sys
	hotel := "own-" + sys.ID
	stay := stayFromNow(15, 2)
	openRooms(t, sys, hotel, "double", stay, 4)
	path := fmt.Sprintf("/api/v1/admin/hotels/%s/room-types/double/allocations", hotel)
	res := sys.Admin(t, http.MethodPut, path, map[string]any{"channelId": "wholesale", "agentId": "lena",
		"from": stay.CheckIn, "to": stay.CheckOut, "allotted": 2})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/agents/max", map[string]any{"channelId": "wholesale", "name": "Max"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/channels/retail", map[string]any{"name": "Retail"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, path, map[string]any{"channelId": "retail", "agentId": "lena",
		"from": stay.CheckIn, "to": stay.CheckOut, "allotted": 1})
	assert.Equal(t, http.StatusBadRequest, res.Status, "lena sells through wholesale: %s", res.Raw)

	book := func(as testsuite.Caller, key string, qty int) testsuite.Response {
		return as.Do(t, http.MethodPost, "/api/v1/agent/bookings", map[string]string{"Idempotency-Key": key},
			map[string]any{"hotelId": hotel, "roomTypeId": "double", "checkIn": stay.CheckIn, "checkOut": stay.CheckOut, "quantity": qty})
	}
	// max, lena's colleague, sells the 2 pooled rooms and no more: lena's are lena's.
	maxAgent := sys.As(t, domain.Principal{Subject: "max-user", Roles: []domain.Role{domain.RoleAgent}, Agent: "max", Channel: "wholesale"})
	res = book(maxAgent, "max-1", 3)
	assert.Equal(t, http.StatusConflict, res.Status, res.Raw)
	res = book(maxAgent, "max-2", 2)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = book(w.agent, "lena-1", 2)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	lenas := res.Body["id"].(string)
	awaitStatus(t, sys, lenas, "CONFIRMED")

	res = sys.Admin(t, http.MethodGet, fmt.Sprintf("%s?from=%s&to=%s", path, stay.CheckIn, stay.CheckOut), nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	shares := res.Body["nights"].([]any)[0].(map[string]any)["channels"].([]any)
	require.Len(t, shares, 1)
	assert.Equal(t, map[string]any{"channelId": "wholesale", "agentId": "lena", "allotted": 2.0, "used": 2.0, "exhausted": true}, shares[0])

	del := fmt.Sprintf("%s?channelId=wholesale&agentId=lena&from=%s&to=%s", path, stay.CheckIn, stay.CheckOut)
	res = sys.Admin(t, http.MethodDelete, del, nil)
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "rooms sold from its allocation on 2 nights")
	res = w.agent.Do(t, http.MethodPost, "/api/v1/agent/bookings/"+lenas+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	awaitStatus(t, sys, lenas, "CANCELLED")
	res = sys.Admin(t, http.MethodDelete, del, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, 2.0, res.Body["nights"])
	res = sys.Admin(t, http.MethodDelete, del, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
	// Its rooms are the pool's again: max sells them.
	res = book(maxAgent, "max-3", 2)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	checkInvariants(t, sys)
}
