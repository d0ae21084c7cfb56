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

// TestClosingAPaidSlotNamesItsBookingAndItIsNeverANoShow (issue 39, defect 2): the desk closes
// court-1's 09:00 slot, paid for by a guest: refused 409 slots_booked naming the booking, nothing
// closed. Closed keeping the booking, the booking stays CONFIRMED past its no-show deadline (its
// guest could not come), while a paid booking of the open 10:00 slot, the control, becomes a
// no-show at the same deadline.
func TestClosingAPaidSlotNamesItsBookingAndItIsNeverANoShow(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{NoShowAfter: 8 * time.Second})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(5)
	openVenue(t, sys, "v-rain", day, 24)
	var ids []string
	for i, hour := range []int{9, 10} {
		res := placeOrder(t, sys, "v-rain", sys.Customer("guest"), "o"+string(rune('a'+i)), hourLine("court-1", day, hour, 1, 1))
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		id := res.Body["id"].(string)
		payAndConfirm(t, sys, id, 2000, "evt_rain_"+id, "pi_rain_"+id)
		ids = append(ids, id)
	}
	closed, open := ids[0], ids[1]
	start := day.Time().Add(9*time.Hour + 30*time.Minute)
	body := map[string]any{"resourceId": "court-1", "start": start, "reason": "rain"}
	res := sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/v-rain/closures", body)
	require.Equal(t, http.StatusConflict, res.Status, res.Raw)
	e := res.Body["error"].(map[string]any)
	assert.Equal(t, "slots_booked", e["code"])
	named := e["details"].(map[string]any)["bookings"].([]any)
	require.Len(t, named, 1, res.Raw)
	assert.Equal(t, closed, named[0].(map[string]any)["bookingId"])
	assert.Zero(t, count(t, sys, `SELECT count(*) FROM inventory WHERE closed_at IS NOT NULL`), "nothing was closed")

	body["keepBookings"] = true
	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/v-rain/closures", body)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, float64(1), res.Body["closed"])

	awaitStatus(t, sys, open, "NO_SHOW")
	time.Sleep(2 * time.Second) // both deadlines have passed
	assert.Equal(t, "CONFIRMED", dbStatus(t, sys, closed), "a booking whose slot was closed is never a no-show")
	testsuite.ReplayAndRecord(t, sys.Temporal, open, "venue-order-no-show-unless-closed")
	testsuite.ReplayAndRecord(t, sys.Temporal, closed, "venue-order-slot-closed-not-a-no-show")
	checkInvariants(t, sys)
}
