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

// TestTodaysHotelDayStillShowsWhenAHotelAndAVenueShareItsID (a review of the first cut): a hotel
// and a venue may share an id (db.SiteByID answers 409 for it, as the cash-ups document). The list
// of refunds due at the desk is read through that lookup; the first cut failed the whole of
// today's hotel day and venue day when the list could not be read. The page now shows, and says
// the list is missing. The control is another day's page, which reads no list.
func TestTodaysHotelDayStillShowsWhenAHotelAndAVenueShareItsID(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	today := domain.DateOf(time.Now(), time.UTC)
	openRooms(t, sys, "shared-site", "double", stayFromNow(0, 2), 1)
	openVenue(t, sys, "shared-site", today, 24)

	c := newConsoleClient(t, sys)
	c.devSignIn("desk-shared", "front_desk", "hotel:shared-site")
	res, page := c.do(http.MethodGet, "/console/hotels/shared-site/day?date="+today.AddDays(1).String(), nil, nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "the control: tomorrow's page reads no due list: %s", page)
	res, page = c.do(http.MethodGet, "/console/hotels/shared-site/day", nil, nil)
	assert.Equal(t, http.StatusOK, res.StatusCode, "today's hotel day fails for its side panel: %.300s", page)
	assert.Contains(t, page, `id="owed-at-desk-failed"`, "the page says the list is missing")

	v := newConsoleClient(t, sys)
	v.devSignIn("venue-desk-shared", "front_desk", "venue:shared-site")
	res, page = v.do(http.MethodGet, "/console/venues/shared-site/day?date="+today.AddDays(1).String(), nil, nil)
	require.Equal(t, http.StatusOK, res.StatusCode, "the control: tomorrow's venue day reads no due list: %.300s", page)
	res, page = v.do(http.MethodGet, "/console/venues/shared-site/day", nil, nil)
	assert.Equal(t, http.StatusOK, res.StatusCode, "today's venue day fails for its side panel: %.300s", page)
	assert.Contains(t, page, `id="owed-at-desk-failed"`, "the page says the list is missing")
}
