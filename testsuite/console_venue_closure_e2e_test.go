package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleClosingAPaidSlotNamesItsBooking (issue 39, defect 2): the desk closes court-1's
// 10:00 slot, which a guest paid for: nothing is closed, the day says so and names the booking
// (a link to its page), the close form is kept; "Close keeping these bookings" then closes it
// with the booking kept.
func TestConsoleClosingAPaidSlotNamesItsBooking(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day, loc := openMorningVenue(t, s, "v-rain")
	desk := s.As(t, domain.Principal{Subject: "desk-rain", Roles: []domain.Role{domain.RoleFrontDesk}, Venues: []string{"v-rain"}})
	start := day.At(10, loc)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-rain/bookings", map[string]string{"Idempotency-Key": "r-1"},
		map[string]any{"phone": "+36301114444", "name": "Béla", "lines": []map[string]any{{"resourceId": "court-1", "start": start,
			"end": start.Add(time.Hour), "quantity": 1}}})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	id := res.Body["id"].(string)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", map[string]string{"Idempotency-Key": "p-1"},
		map[string]any{"amount": 2000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	b := testsuite.NewBrowser(t, "closure")
	b.DevSignIn(s, "desk-rain", "front_desk", "venue:v-rain")
	b.Visit(s.ConsoleURL() + "/venues/v-rain/day")
	b.Do(chromedp.SetValue(chromedp.ID("close-resource"), "court-1"), chromedp.SetValue(chromedp.ID("close-reason"), "rain"))
	b.Do(chromedp.SetValue(chromedp.ID("close-start"), b.OptionValue("#close-start", "10:00")))
	b.Submit("#close-units")
	b.Screenshot("closure-refused")
	assert.Contains(t, b.Text("#closure-refused h2"), "Nothing was closed")
	assert.Contains(t, b.Text("#closure-refused li"), "walk-in:+36301114444")
	assert.Equal(t, "/console/bookings/"+id, b.Attr("#closure-refused li a", "href"))
	assert.Equal(t, "paid", cellState(b, "court-1", "10:00"))
	var closed int
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM inventory i JOIN resources r
		ON r.id = i.resource_id WHERE r.venue_id = 'v-rain' AND i.closed_at IS NOT NULL`).Scan(&closed))
	assert.Zero(t, closed, "nothing was closed")

	b.Submit("#close-keeping")
	b.Screenshot("closure-kept")
	assert.Equal(t, "closed", cellState(b, "court-1", "10:00"))
	assert.Contains(t, b.Text(`td[data-resource="court-1"][data-start="10:00"]`), "rain")
	got := desk.Do(t, http.MethodGet, "/api/v1/staff/bookings/"+id, nil, nil)
	assert.Equal(t, "CONFIRMED", got.Body["status"], "the booking is kept")
}
