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

// TestAVenueIsSetUpAndSearchedOverHTTP: an admin creates a venue in Shanghai with a court, a
// lane and rackets, lays out their slots, closes one; customers search them in the venue's
// local time and see what is left. Bad input is a 4xx with a reason and writes nothing.
func TestAVenueIsSetUpAndSearchedOverHTTP(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	admin := func(method, path string, body any) testsuite.Response {
		return sys.Admin(t, method, "/api/v1/admin/venues/"+path, body)
	}
	res := admin(http.MethodPut, "v-sh", map[string]any{"name": "Pudong Sports", "timeZone": "Asia/Shanghai"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.EqualValues(t, 15, res.Body["paymentWindowMinutes"], "venues wait 15 minutes for payment by default")
	for _, r := range []struct {
		id   string
		body map[string]any
	}{
		{"court-1", map[string]any{"kind": "exclusive_slot", "name": "Court 1", "sport": "badminton"}},
		{"lane-1", map[string]any{"kind": "quota_slot", "name": "Lane 1", "sport": "swimming", "capacity": 6}},
		{"rackets", map[string]any{"kind": "equipment", "name": "Rackets", "unit": "hour", "capacity": 10}},
	} {
		res := admin(http.MethodPut, "v-sh/resources/"+r.id, r.body)
		require.Equal(t, http.StatusCreated, res.Status, "%s: %s", r.id, res.Raw)
	}
	day := domain.DateOf(time.Now(), time.UTC).AddDays(10)
	sched := map[string]any{"from": day, "to": day.AddDays(1), "opens": "07:00", "closes": "09:00", "slotMinutes": 60,
		"price": map[string]any{"amount": 4000, "currency": "CNY"}}
	for _, id := range []string{"court-1", "lane-1", "rackets"} {
		res := admin(http.MethodPost, "v-sh/resources/"+id+"/schedule", sched)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		assert.EqualValues(t, 2, res.Body["created"], id)
	}
	res = admin(http.MethodPost, "v-sh/resources/court-1/schedule", sched)
	assert.EqualValues(t, 0, res.Body["created"], "the same schedule again creates nothing: %s", res.Raw)

	guest := sys.Guest(t, sys.Customer("guest"))
	slots := func(c testsuite.Caller, query string) []any {
		res := c.Do(t, http.MethodGet, "/api/v1/venues/v-sh/slots?date="+day.String()+query, nil, nil)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
		return res.Body["slots"].([]any)
	}
	badminton := slots(guest, "&sport=badminton")
	require.Len(t, badminton, 2)
	first := badminton[0].(map[string]any)
	assert.Equal(t, day.String()+"T07:00:00+08:00", first["start"], "in the venue's local time, with its offset")
	assert.Equal(t, day.String()+"T08:00:00+08:00", first["end"])
	assert.EqualValues(t, 1, first["placesLeft"])
	assert.Len(t, slots(guest, ""), 4, "the court's and the lane's; equipment is not a slot")

	// The 07:00 lane slot closes: customers see it closed, without staff's reason.
	res = admin(http.MethodPost, "v-sh/closures", map[string]any{"resourceId": "lane-1", "start": day.String() + "T07:00:00+08:00",
		"reason": "lane rope broken"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.EqualValues(t, 1, res.Body["closed"])
	lane := slots(guest, "&sport=swimming")[0].(map[string]any)
	assert.Equal(t, false, lane["open"])
	assert.EqualValues(t, 0, lane["placesLeft"])
	assert.Nil(t, lane["closedReason"])
	staff := sys.As(t, domain.Principal{Subject: "ops", Roles: []domain.Role{domain.RoleFinance}})
	assert.Equal(t, "lane rope broken", slots(staff, "&sport=swimming")[0].(map[string]any)["closedReason"])
	res = admin(http.MethodPost, "v-sh/reopenings", map[string]any{"date": day})
	assert.EqualValues(t, 1, res.Body["reopened"], res.Raw)

	res = guest.Do(t, http.MethodGet, "/api/v1/venues/v-sh/equipment?from="+day.String()+"T07:00:00%2B08:00&to="+
		day.String()+"T09:00:00%2B08:00", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	rackets := res.Body["equipment"].([]any)[0].(map[string]any)
	assert.EqualValues(t, 10, rackets["available"])
	assert.EqualValues(t, 8000, rackets["price"].(map[string]any)["amount"], "two hours")

	// Refused with a reason, nothing written.
	for _, c := range []struct {
		method, path string
		body         any
		status       int
	}{
		{http.MethodPut, "v-x", map[string]any{"timeZone": "Mars/Olympus"}, http.StatusBadRequest},
		{http.MethodPut, "v-sh", map[string]any{"timeZone": "Europe/Berlin"}, http.StatusConflict},
		{http.MethodPut, "v-none/resources/court-1", map[string]any{"kind": "exclusive_slot"}, http.StatusNotFound},
		{http.MethodPut, "v-sh/resources/court-2", map[string]any{"kind": "exclusive_slot", "capacity": 2}, http.StatusBadRequest},
		{http.MethodPut, "v-sh/resources/court-1", map[string]any{"kind": "quota_slot", "capacity": 4}, http.StatusConflict},
		{http.MethodPost, "v-sh/resources/court-1/schedule", map[string]any{"from": day, "to": day.AddDays(1), "opens": "10:00",
			"closes": "09:00", "slotMinutes": 60, "price": map[string]any{"amount": 1, "currency": "CNY"}}, http.StatusBadRequest},
		{http.MethodPost, "v-sh/resources/nope/schedule", sched, http.StatusNotFound},
		{http.MethodPost, "v-sh/closures", map[string]any{"resourceId": "court-1"}, http.StatusBadRequest},
		{http.MethodPost, "v-sh/closures", map[string]any{"start": day.String() + "T07:00:00+08:00", "reason": "x"}, http.StatusBadRequest},
	} {
		res := admin(c.method, c.path, c.body)
		assert.Equal(t, c.status, res.Status, "%s %s: %s", c.method, c.path, res.Raw)
		assert.NotEmpty(t, res.ErrorCode(), res.Raw)
	}
	assert.Len(t, slots(guest, ""), 4, "nothing changed")
	res = guest.Do(t, http.MethodGet, "/api/v1/venues/v-sh/slots?date=tomorrow", nil, nil)
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	res = guest.Do(t, http.MethodGet, "/api/v1/venues/v-none/slots?date="+day.String(), nil, nil)
	assert.Equal(t, http.StatusNotFound, res.Status, res.Raw)
}
