package testsuite_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestTheDeskMarksANoShowByHandAsTheDeadlineWould (issue 39, the venue grid): the desk need not
// wait for the no-show deadline. A paid court game under way, nobody checked in, is marked a
// no-show by hand with a reason: NO_SHOW at once, its payment kept whole (a venue order's terms
// keep all, as at the deadline), audited as no-show with the reason; asked again it answers the
// same without a second entry, and a check-in is then refused. A game not started yet is 409
// too_early, and stays CONFIRMED. A hotel stay from today under a plan keeping the first night
// gives the rest back as the deadline's would: one refund of kind no_show under
// no-show@<check-in>, by system:no-show, through the provider. Both histories replay.
func TestTheDeskMarksANoShowByHandAsTheDeadlineWould(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	openCourtsAllDay(t, sys, "v-ns", "court-1")
	now := time.Now().UTC().Truncate(time.Hour)
	line := func(start time.Time) map[string]any { return courtHour("court-1", start) }
	desk := deskOf(t, sys, []string{"h-ns-hand"}, []string{"v-ns"})
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-ns/bookings", map[string]string{"Idempotency-Key": "under-way"},
		map[string]any{"phone": "+36 30 123 4567", "name": "Ada", "lines": []any{line(now)}})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	game := res.Body["id"].(string)
	payAndConfirm(t, sys, game, 2000, "evt_ns_game", "pi_ns_game")
	res = placeOrder(t, sys, "v-ns", sys.Customer("later"), "k-later", line(now.Add(2*time.Hour)))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	later := res.Body["id"].(string)
	payAndConfirm(t, sys, later, 2000, "evt_ns_later", "pi_ns_later")

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+later+"/no-show", nil, map[string]any{"reason": "early"})
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	assert.True(t, strings.Contains(res.Raw, `"code":"too_early"`), res.Raw)
	assert.Equal(t, "CONFIRMED", bookingStatus(t, sys, later))

	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+game+"/no-show", nil, map[string]any{"reason": "nobody came to court 1"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "NO_SHOW", res.Body["status"])
	assert.Equal(t, float64(2000), res.Body["paid"], "a venue order's no-show keeps everything")
	assert.NotNil(t, res.Body["money"], res.Raw)
	again := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+game+"/no-show", nil, nil)
	require.Equal(t, http.StatusOK, again.Status, again.Raw)
	assert.Equal(t, "NO_SHOW", again.Body["status"])
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM audit_log WHERE booking_id = $1 AND action = 'no-show'
		AND reason = 'nobody came to court 1' AND actor = $2`, game, "desk-"+sys.ID))
	assert.Equal(t, 0, count(t, sys, `SELECT count(*) FROM refunds WHERE booking_id = $1`, game), "nothing given back")
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+game+"/check-in", nil, nil)
	assert.Equal(t, http.StatusConflict, res.Status, "a no-show is not checked in: %s", res.Raw)
	testsuite.ReplayAndRecord(t, sys.Temporal, game, "venue-no-show-by-hand")

	// A stay from today under a plan keeping the first night: the rest comes back.
	stay := stayFromNow(0, 3)
	openRooms(t, sys, "h-ns-hand", "double", stay, 1)
	putPlans(t, sys, "h-ns-hand", planDef{"FIRST", map[string]any{"name": "Flexible", "policy": map[string]any{"noShow": "first_night"}}})
	for i, amount := range []int64{9000, 13500, 10800} {
		night := stay.CheckIn.AddDays(i)
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-ns-hand/rate-plans/FIRST/room-types/double/rates",
			map[string]any{"from": night, "to": night.AddDays(1), "rate": amount, "currency": "EUR"})
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
	body := holdBody(sys.Customer("guest"), "h-ns-hand", "double", stay, 1)
	body["ratePlan"] = "FIRST"
	res = hold(t, sys, "k-ns-hand", body)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	stayID := res.Body["id"].(string)
	payAndConfirm(t, sys, stayID, 33300, "evt_ns_stay", "pi_ns_stay")
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+stayID+"/no-show", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "NO_SHOW", res.Body["status"])
	var money testsuite.Response
	require.Eventually(t, func() bool {
		money = sys.Admin(t, http.MethodGet, "/api/v1/staff/bookings/"+stayID+"/payments", nil)
		refunds, _ := money.Body["refunds"].([]any)
		return len(refunds) == 1 && refunds[0].(map[string]any)["status"] == "succeeded"
	}, 20*time.Second, 50*time.Millisecond, "the no-show's refund never succeeded: %s", money.Raw)
	assert.Equal(t, float64(9000), money.Body["paid"], "the first night is kept")
	r := money.Body["refunds"].([]any)[0].(map[string]any)
	assert.Equal(t, float64(13500+10800), r["amount"])
	assert.Equal(t, "nobody checked in: the rate plan keeps the first night", r["reason"])
	assert.True(t, strings.Contains(r["id"].(string), "no-show@"+stay.CheckIn.String()), "keyed by the no-show: %v", r["id"])
	assert.Equal(t, 1, count(t, sys, `SELECT count(*) FROM staff_refunds WHERE booking_id = $1 AND kind = 'no_show'
		AND actor = 'system:no-show'`, stayID))
	testsuite.ReplayAndRecord(t, sys.Temporal, stayID, "hotel-no-show-by-hand-first-night")
	checkInvariants(t, sys)
}
