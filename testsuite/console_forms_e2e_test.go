package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleWalkInFormsKeepWhatWasTyped (issue 39, defect 5): a refused walk-in comes back as
// the form the desk typed, the refusal beside the field it concerns, at the API's status, never
// an error page that loses the phone and name; a national number is read in the site's country.
//   - At a Hungarian venue (country HU) a malformed number is refused beside the phone, the name
//     and phone still typed; "06 30 123 4567" then books the guest as +36301234567.
//   - At a venue without a country the same national number is refused beside the phone, asking
//     for the country code, with the form kept.
//   - At a Hungarian hotel the day's walk-in form keeps its nights, rooms, phone and name when
//     refused (a bad phone beside it; more rooms than are left above the form, at 409), and books
//     the national number.
func TestConsoleWalkInFormsKeepWhatWasTyped(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	openMorningVenue(t, s, "v-hu")
	openMorningVenue(t, s, "v-none")
	today := domain.DateOf(time.Now(), time.UTC)
	res := s.Admin(t, http.MethodPut, "/api/v1/admin/hotels/h-hu/room-types/double/inventory", map[string]any{
		"from": today, "to": today.AddDays(5), "totalRooms": 3, "rate": 10000, "currency": "EUR", "country": "HU"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	// An admin gives the venue its country on its page; the hotel shows the one its PUT gave.
	b := testsuite.NewBrowser(t, "forms")
	b.DevSignIn(s, "admin-1", "admin", "")
	b.Visit(s.ConsoleURL() + "/admin/venues/v-hu")
	b.Do(chromedp.SetValue(chromedp.ID("terms-country"), "hu"))
	b.Submit("#save-terms")
	b.Screenshot("venue-country-set")
	assert.Equal(t, "HU", b.Text("#venue-country"))
	venue := s.Admin(t, http.MethodGet, "/api/v1/admin/venues/v-hu", nil)
	assert.Contains(t, venue.Raw, `"country":"HU"`, "the venue's GET shows its country")
	b.Visit(s.ConsoleURL() + "/admin/hotels/h-hu")
	assert.Equal(t, "HU", b.Text("#hotel-country"))
	assert.Equal(t, "HU", fieldValue(t, b, "new-country"), "the inventory forms send the hotel's country again")

	b.DevSignIn(s, "desk-hu", "front_desk", "venue:v-hu")
	b.Visit(s.ConsoleURL() + "/venues/v-hu/day")
	b.Submit(`td[data-resource="court-1"][data-start="10:00"] a`)
	assert.Contains(t, b.Text("#phone-hint"), "+36", "the form says national numbers are read as Hungarian")
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "06 30 12"), chromedp.SetValue(chromedp.ID("name"), "Kovács Anna"))
	b.Submit("#walk-in-book")
	b.Screenshot("venue-hu-malformed-phone")
	assertRefusedBesidePhone(t, b, http.StatusBadRequest, "06 30 12", "Kovács Anna", "8 to 15 digits")

	b.Do(chromedp.SetValue(chromedp.ID("phone"), "06 30 123 4567"))
	b.Submit("#walk-in-book")
	b.Screenshot("venue-hu-national-booked")
	require.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))
	assert.Equal(t, domain.WalkInPrefix+"+36301234567", customerOf(t, s, b.Text("main code")))

	b.DevSignIn(s, "desk-none", "front_desk", "venue:v-none")
	b.Visit(s.ConsoleURL() + "/venues/v-none/day")
	b.Submit(`td[data-resource="court-1"][data-start="10:00"] a`)
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "06 30 123 4567"), chromedp.SetValue(chromedp.ID("name"), "Nagy Péter"))
	b.Submit("#walk-in-book")
	b.Screenshot("venue-no-country-national-refused")
	assertRefusedBesidePhone(t, b, http.StatusBadRequest, "06 30 123 4567", "Nagy Péter", "country code")

	b.DevSignIn(s, "reception-hu", "front_desk", "hotel:h-hu")
	b.Visit(s.ConsoleURL() + "/hotels/h-hu/day")
	b.Do(chromedp.SetValue(chromedp.ID("nights"), "2"), chromedp.SetValue(chromedp.ID("quantity"), "2"),
		chromedp.SetValue(chromedp.ID("phone"), "06 30 abc"), chromedp.SetValue(chromedp.ID("name"), "Szabó Éva"))
	b.Submit("#hotel-walk-in")
	b.Screenshot("hotel-hu-malformed-phone")
	assertRefusedBesidePhone(t, b, http.StatusBadRequest, "06 30 abc", "Szabó Éva", "only digits")
	assert.Equal(t, []string{"2", "2"}, []string{fieldValue(t, b, "nights"), fieldValue(t, b, "quantity")},
		"the nights and rooms typed are kept")

	// A refusal that names no field (more rooms than are left) shows above the form, kept.
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "30 123 4567"), chromedp.SetValue(chromedp.ID("quantity"), "4"))
	b.Submit("#hotel-walk-in")
	b.Screenshot("hotel-hu-sold-out")
	assert.Equal(t, http.StatusConflict, pageStatus(t, b))
	assert.Contains(t, b.Text("#walk-in-refused"), "Not enough left")
	assert.Equal(t, []string{"30 123 4567", "Szabó Éva", "2", "4"}, []string{fieldValue(t, b, "phone"), fieldValue(t, b, "name"),
		fieldValue(t, b, "nights"), fieldValue(t, b, "quantity")})

	b.Do(chromedp.SetValue(chromedp.ID("quantity"), "2"))
	b.Submit("#hotel-walk-in")
	b.Screenshot("hotel-hu-national-booked")
	require.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))
	assert.Equal(t, domain.WalkInPrefix+"+36301234567", customerOf(t, s, b.Text("main code")))
}

// assertRefusedBesidePhone checks the page is the walk-in form again, answered with status,
// phone and name as typed, and the phone's error (saying says) beside it: the field marked
// invalid and described by the error.
func assertRefusedBesidePhone(t *testing.T, b *testsuite.Browser, status int, phone, name, says string) {
	t.Helper()
	assert.Equal(t, status, pageStatus(t, b), "the page answers the refusal's status")
	assert.Equal(t, phone, fieldValue(t, b, "phone"), "the phone typed is kept")
	assert.Equal(t, name, fieldValue(t, b, "name"), "the name typed is kept")
	assert.Equal(t, "true", b.Attr("#phone", "aria-invalid"))
	assert.Contains(t, b.Attr("#phone", "aria-describedby"), "err-phone")
	assert.Contains(t, b.Text("#err-phone"), says)
}

// fieldValue is the value of the form field with the id.
func fieldValue(t *testing.T, b *testsuite.Browser, id string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.getElementById(%q).value`, id)))
	require.NoError(t, err, id)
	return v
}

// pageStatus is the HTTP status the page the browser shows was answered with.
func pageStatus(t *testing.T, b *testsuite.Browser) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[int](`performance.getEntriesByType('navigation')[0].responseStatus`))
	require.NoError(t, err)
	return v
}

// customerOf is the customer the database holds for the booking.
func customerOf(t *testing.T, s *testsuite.System, id string) string {
	t.Helper()
	var customer string
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT customer_id FROM bookings WHERE id = $1`, id).Scan(&customer))
	return customer
}
