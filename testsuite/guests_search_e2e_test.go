package testsuite_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDeskWritesDownTheGuestAndFindsTheBooking (issue 39): the desk writes down a booking's
// guest (a national phone read in the hotel's country, HU); the staff booking shows it, the
// day's list names the booking by it, and the search finds it by a part of the name, the phone
// as typed and the e-mail, only for the hotel's own desk. A bad e-mail is refused naming the
// field, and nothing is written; the guest never reaches the booking's workflow.
func TestTheDeskWritesDownTheGuestAndFindsTheBooking(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	stay := stayFromNow(3, 2)
	openRooms(t, sys, "h-guests", "double", stay, 2)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-guests/room-types/double/inventory", map[string]any{
		"from": stay.CheckIn, "to": stay.CheckOut, "totalRooms": 2, "country": "HU"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	id, _ := holdRoom(t, sys, "h-guests", "k-guests", stay, 1)
	desk := sys.As(t, domain.Principal{Subject: "desk-g", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-guests"}})
	other := sys.As(t, domain.Principal{Subject: "desk-o", Roles: []domain.Role{domain.RoleFrontDesk}, Hotels: []string{"h-other"}})

	res = desk.Do(t, http.MethodPut, "/api/v1/staff/bookings/"+id+"/guest", nil, map[string]any{"name": "Zsófia Nagy",
		"email": "not an address"})
	require.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.Contains(t, res.Raw, "email")
	res = desk.Do(t, http.MethodPut, "/api/v1/staff/bookings/"+id+"/guest", nil, map[string]any{"name": "Zsófia Nagy",
		"phone": "06 20 555 1234", "email": "zsofia@example.hu", "guests": 2, "arrivalTime": "21:15", "notes": "cot for a baby"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "+36205551234", res.Body["phone"])
	assert.Equal(t, "desk-g", res.Body["updatedBy"])

	got := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id, nil, nil)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	assert.Equal(t, "Zsófia Nagy", got.Body["guestName"])
	assert.Equal(t, "cot for a baby", got.Body["guest"].(map[string]any)["notes"])
	day := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings?hotelId=h-guests&date="+stay.CheckIn.String(), nil, nil)
	require.Equal(t, http.StatusOK, day.Status, day.Raw)
	assert.Equal(t, "Zsófia Nagy", day.Body["bookings"].([]any)[0].(map[string]any)["guestName"])

	for _, q := range []string{"zsófia", "NAGY", "06 20 555 1234", "+36 20 555", "zsofia@example", id} {
		res := desk.Do(t, http.MethodGet, "/api/v1/staff/search?q="+url.QueryEscape(q), nil, nil)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		results := res.Body["results"].([]any)
		require.Len(t, results, 1, "%s: %s", q, res.Raw)
		assert.Equal(t, id, results[0].(map[string]any)["id"], q)
		assert.Equal(t, "Zsófia Nagy", results[0].(map[string]any)["guestName"], q)
		res = other.Do(t, http.MethodGet, "/api/v1/staff/search?q="+url.QueryEscape(q), nil, nil)
		assert.Empty(t, res.Body["results"], "%s: another hotel's desk finds nothing", q)
	}
	assert.Equal(t, http.StatusBadRequest, desk.Do(t, http.MethodGet, "/api/v1/staff/search?q=z", nil, nil).Status)
	assert.Equal(t, http.StatusForbidden, other.Do(t, http.MethodPut, "/api/v1/staff/bookings/"+id+"/guest", nil,
		map[string]any{"name": "x"}).Status)

	assert.Empty(t, inTheClear(t, historyJSON(t, sys, id), "Zsófia", "205551234", "zsofia@", "cot for a baby"),
		"the guest never reaches the booking's workflow")
}

// historyJSON is a workflow's history, event by event, as JSON.
func historyJSON(t *testing.T, sys *testsuite.System, id string) string {
	t.Helper()
	var b strings.Builder
	iter := sys.Temporal.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		raw, err := protojson.Marshal(ev)
		require.NoError(t, err)
		b.Write(raw)
	}
	return b.String()
}
