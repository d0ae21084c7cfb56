package testsuite_test

import (
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

// TestConsoleMarksANoShowFromTheGridAndTheBookingPage (issue 39, the venue grid): two paid court
// games under way, nobody checked in. The grid offers No-show beside each (and not beside a game
// later today); the desk marks the first from the grid: it is NO_SHOW and audited, and the grid
// offers it no more. The second is marked from its booking page, as a second step asking for a
// reason, which the audit keeps; the page then offers it no more. Both pages pass axe.
func TestConsoleMarksANoShowFromTheGridAndTheBookingPage(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	today := domain.DateOf(time.Now(), time.UTC)
	openCourtsAllDay(t, s, "v-cns", "court-1", "court-2")
	now := time.Now().UTC().Truncate(time.Hour)
	if now.Hour() >= 22 {
		t.Skip("the later game would fall on tomorrow") // the grid shows one day
	}
	desk := deskOf(t, s, nil, []string{"v-cns"})
	game := func(key, court string, start time.Time) string {
		res := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-cns/bookings", keyed(key), map[string]any{
			"phone": "+36 30 222 00" + fmt.Sprint(10+len(key)), "name": "Guest " + key,
			"lines": []any{courtHour(court, start)}})
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		id := res.Body["id"].(string)
		payAndConfirm(t, s, id, 2000, "evt_"+key, "pi_"+key)
		return id
	}
	first, second := game("a", "court-1", now), game("bb", "court-2", now)
	game("ccc", "court-1", now.Add(2*time.Hour))

	b := testsuite.NewBrowser(t, "no-show")
	b.DevSignIn(s, "desk-cns", "front_desk", "venue:v-cns")
	b.Visit(s.ConsoleURL() + "/venues/v-cns/day?date=" + today.String())
	hh := now.Format("15:04")
	assert.Equal(t, 1, countOf(t, b, slotCell("court-1", hh)+` form.no-show button`))
	assert.Equal(t, 1, countOf(t, b, slotCell("court-2", hh)+` form.no-show button`))
	assert.Equal(t, 0, countOf(t, b, slotCell("court-1", now.Add(2*time.Hour).Format("15:04"))+` form.no-show`),
		"a game not started is no no-show")
	b.Screenshot("grid-offers-no-show")
	b.AssertAccessible(t, "venue grid offering a no-show")

	b.Submit(slotCell("court-1", hh) + ` form.no-show button`)
	b.Screenshot("grid-no-show-marked")
	assert.Contains(t, b.Text(".flash"), "Marked a no-show.")
	assert.Equal(t, "NO_SHOW", bookingStatus(t, s, first))
	assert.Equal(t, 0, countOf(t, b, slotCell("court-1", hh)+` form.no-show`), "offered no more")
	assert.Equal(t, 1, count(t, s, `SELECT count(*) FROM audit_log WHERE booking_id = $1 AND action = 'no-show'
		AND actor = 'desk-cns'`, first))

	b.Visit(s.ConsoleURL() + "/bookings/" + second)
	b.Do(chromedp.Click(chromedp.ID("no-show-open")))
	b.Do(chromedp.SetValue(chromedp.ID("no-show-reason"), "nobody came by half past"))
	b.Screenshot("booking-no-show-step")
	b.AssertAccessible(t, "booking page's no-show step")
	b.Submit("#no-show")
	b.Screenshot("booking-no-show-marked")
	assert.Contains(t, b.Text(".flash"), "Marked a no-show.")
	assert.Equal(t, "NO_SHOW", b.Attr("#booking-status", "data-status"))
	assert.Equal(t, 0, countOf(t, b, "#no-show, #cancel-booking"), "nothing more to mark or cancel")
	assert.Equal(t, 1, count(t, s, `SELECT count(*) FROM audit_log WHERE booking_id = $1 AND action = 'no-show'
		AND actor = 'desk-cns' AND reason = 'nobody came by half past'`, second))
}
