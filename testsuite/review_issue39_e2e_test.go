package testsuite_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Review of issue 39's check-out.

// TestAPartlyPaidGuestCheckedOutEarlyOwesOnlyTheNightStayed: three nights from today at a hotel
// whose policy gives all nights not stayed back; the desk takes a 50.00 cash deposit (which now
// confirms the hold), checks the guest in and out today. The guest stayed one night: in all
// (paid, less what goes back, plus what is still due) they pay that night, as the fully paid
// guest of TestCheckOutEndsTheStayEarlyOrOnTime does.
func TestAPartlyPaidGuestCheckedOutEarlyOwesOnlyTheNightStayed(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{})
	night := testsuite.TestRate.Amount
	stay := stayFromNow(0, 3)
	openRooms(t, sys, "h-rv-part", "double", stay, 1)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-rv-part/cancellation-policy",
		map[string]any{"earlyDeparture": domain.EarlyDepartureAll})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	id, total := holdRoom(t, sys, "h-rv-part", "k1", stay, 1)
	require.Equal(t, 3*night, total)
	desk := deskOf(t, sys, []string{"h-rv-part"}, nil)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	require.Equal(t, "CONFIRMED", res.Body["status"])
	require.Equal(t, http.StatusOK, desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-in", nil, nil).Status)

	preview := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/check-out", nil, nil)
	require.Equal(t, http.StatusOK, preview.Status, preview.Raw)
	t.Logf("preview: %s", preview.Raw)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-out", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	d := res.Body["departure"].(map[string]any)
	time.Sleep(3 * time.Second) // a refund's saga, if any, under way
	m := moneyOf(t, sys, id)
	t.Logf("departure %v, money %v, price %v", d, m, staffView(t, sys, id).Body["price"])
	inAll := m["paid"].(float64) - m["refunded"].(float64) - m["refunding"].(float64) + m["due"].(float64)
	assert.Equal(t, float64(night), inAll, "the guest pays in all the one night stayed (money %v)", m)
	assert.Equal(t, preview.Body["due"], d["due"], "the preview said what stays due")
}

// TestACheckOutTheMorningBeforeTheLastNightIsEarly: a guest of two nights from today leaves the
// next morning, at 09:00 at the hotel, a night before the stay's end. Checking them out ends the
// stay that day: the last night is not stayed, goes back on sale and is given back by the policy
// (all). Today's check-out keeps that night (the day's night, as a cancel during the stay does)
// and calls the departure on time, nothing given back.
func TestACheckOutTheMorningBeforeTheLastNightIsEarly(t *testing.T) {
	t.Parallel()
	var shift atomic.Int64
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Now: func() time.Time {
		return time.Now().Add(time.Duration(shift.Load()))
	}})
	night := testsuite.TestRate.Amount
	stay := stayFromNow(0, 2)
	openRooms(t, sys, "h-rv-morning", "double", stay, 1)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-rv-morning/cancellation-policy",
		map[string]any{"earlyDeparture": domain.EarlyDepartureAll})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	id, total := holdRoom(t, sys, "h-rv-morning", "k1", stay, 1)
	payAndConfirm(t, sys, id, total, "evt_rv_morning", "pi_rv_morning")
	desk := deskOf(t, sys, []string{"h-rv-morning"}, nil)
	require.Equal(t, http.StatusOK, desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/check-in", nil, nil).Status)

	// The next morning at 09:00 at the hotel (its zone is UTC unless set).
	morning := stay.CheckIn.AddDays(1).Time().Add(9 * time.Hour)
	shift.Store(int64(time.Until(morning)))
	res = desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id+"/check-out", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	t.Logf("preview the next morning: %s", res.Raw)
	assert.Equal(t, stay.CheckIn.AddDays(1).String(), res.Body["checkOut"], "the stay ends the day the guest leaves")
	assert.Equal(t, true, res.Body["early"])
	assert.Equal(t, float64(1), res.Body["nightsNotStayed"])
	assert.Equal(t, float64(night), res.Body["refund"], "the night not stayed comes back by the policy")
}
