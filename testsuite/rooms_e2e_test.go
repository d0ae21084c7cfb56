package testsuite_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDeskPutsGuestsInRoomsAndNeverTwoInOne (issue 39): the admin names rooms 101 and 102
// of the doubles; the desk puts one guest in 101 at booking, and is refused 101 for another guest
// of the same nights (409); the day lists 101 as the first guest's, arriving, and 102 free; the
// first guest checks in and moves to 102 the next night; a cancel lets the room go.
func TestTheDeskPutsGuestsInRoomsAndNeverTwoInOne(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(0, 3)
	openRooms(t, sys, "h-rooms", "double", stay, 3)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-rooms/room-types/double/rooms", map[string]any{"numbers": []string{"101", "102"}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-rooms/room-types/double/rooms", map[string]any{"numbers": []string{"1 01"}})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	desk := sys.As(t, domain.Principal{Subject: "desk-r", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-rooms"}})
	first, total := holdRoom(t, sys, "h-rooms", "k-first", stay, 1)
	second, _ := holdRoom(t, sys, "h-rooms", "k-second", stay, 1)

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+first+"/rooms", nil, map[string]any{"room": "101"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+second+"/rooms", nil, map[string]any{"room": "101"})
	assert.Equal(t, http.StatusConflict, res.Status, "101 is the first guest's: %s", res.Raw)
	day := desk.Do(t, http.MethodGet, "/api/v1/staff/hotels/h-rooms/rooms?date="+stay.CheckIn.String(), nil, nil)
	require.Equal(t, http.StatusOK, day.Status, day.Raw)
	rooms := day.Body["rooms"].([]any)
	require.Len(t, rooms, 2)
	assert.Equal(t, map[string]any{"room": "101", "roomTypeId": "double", "bookingId": first, "status": "HOLD", "arrives": true},
		rooms[0])
	assert.Equal(t, map[string]any{"room": "102", "roomTypeId": "double"}, rooms[1])

	payAndConfirm(t, sys, first, total, "evt_rooms", "pi_rooms")
	require.Equal(t, http.StatusOK, desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+first+"/check-in", nil, nil).Status)
	tomorrow := stay.CheckIn.AddDays(1)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+first+"/rooms", nil, map[string]any{"room": "102", "from": tomorrow})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	got := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+first, nil, nil)
	assert.Equal(t, []any{
		map[string]any{"room": "101", "from": stay.CheckIn.String(), "to": tomorrow.String(), "assignedBy": "desk-r"},
		map[string]any{"room": "102", "from": tomorrow.String(), "to": stay.CheckOut.String(), "assignedBy": "desk-r"},
	}, got.Body["rooms"])

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+second+"/rooms", nil, map[string]any{"room": "101", "from": tomorrow})
	require.Equal(t, http.StatusOK, res.Status, "101 is free from tomorrow: %s", res.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+second+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Nil(t, desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+second, nil, nil).Body["rooms"], "a cancelled booking's room goes")
}
