package testsuite_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDeskSellsASlotUnderWayForItsRest (issue 39, defect 3): the console offers a walk-in on a
// slot not over yet, and the API agrees: the desk books the hour under way for a guest standing
// there, a customer may not, and nobody books the hour that has ended.
func TestTheDeskSellsASlotUnderWayForItsRest(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	openCourtsAllDay(t, sys, "v-now", "court-1")
	now := time.Now().UTC().Truncate(time.Hour)
	line := func(start time.Time) map[string]any { return courtHour("court-1", start) }
	desk := deskOf(t, sys, nil, []string{"v-now"})
	walkIn := func(key string, start time.Time) testsuite.Response {
		return desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-now/bookings", map[string]string{"Idempotency-Key": key},
			map[string]any{"phone": "+36 30 123 4567", "name": "Ada", "lines": []any{line(start)}})
	}

	res := placeOrder(t, sys, "v-now", sys.Customer("guest"), "k1", line(now))
	require.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.True(t, strings.Contains(res.Raw, "starts in the past"), res.Raw)
	res = walkIn("ended", now.Add(-time.Hour))
	require.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	assert.True(t, strings.Contains(res.Raw, "has ended"), res.Raw)

	res = walkIn("under-way", now)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	assert.Equal(t, "HOLD", res.Body["status"])
	assert.Equal(t, float64(2000), res.Body["price"].(map[string]any)["total"], "the slot at its price")
	checkInvariants(t, sys)
}

// openCourtsAllDay opens venue id in UTC with the courts named, each sold by the hour around the
// clock at 20.00 from yesterday to the day after tomorrow: a game is always under way.
func openCourtsAllDay(t *testing.T, sys *testsuite.System, id string, courts ...string) {
	t.Helper()
	today := domain.DateOf(time.Now(), time.UTC)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id, map[string]any{"name": id, "timeZone": "UTC"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	for _, court := range courts {
		res = sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id+"/resources/"+court, map[string]any{"kind": "exclusive_slot",
			"name": court, "sport": "badminton"})
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/"+id+"/resources/"+court+"/schedule", map[string]any{
			"from": today.AddDays(-1), "to": today.AddDays(2), "opens": "00:00", "closes": "24:00", "slotMinutes": 60,
			"price": map[string]any{"amount": 2000, "currency": "EUR"}})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
}

// courtHour is an order's line of court from start for an hour.
func courtHour(court string, start time.Time) map[string]any {
	return map[string]any{"resourceId": court, "start": start, "end": start.Add(time.Hour), "quantity": 1}
}
