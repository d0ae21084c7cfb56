package testsuite_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleDeskHandsOverARefundWaitingThere (issue 39, defect 1): the desk took a 50.00 cash
// deposit and the guest cancelled online. Today's page of the hotel lists it among the refunds
// due to guests at the desk, linked to its booking. The booking page says 50.00 is due to the
// guest at the desk, and the refund reads "Due at the desk", not given back. The receptionist opens "Hand
// over…" (a second step), types a note and confirms: the refund is recorded under their name and
// the booking is REFUNDED; the page offers no hand-over any more, nor today's page the refund. The page passes the
// accessibility check with the step open.
func TestConsoleDeskHandsOverARefundWaitingThere(t *testing.T) {
	t.Parallel()
	s, _, desk := hotelDesk(t, "h-hand", 2)
	id, _ := holdRoom(t, s, "h-hand", "k1", stayFromNow(5, 2), 1)
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+id+"/desk-payments", keyed("deposit"),
		map[string]any{"amount": 5000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	res = s.Guest(t, s.Customer("guest")).Do(t, http.MethodPost, "/api/v1/bookings/"+id+"/cancel", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)

	b := testsuite.NewBrowser(t, "hand-over")
	b.DevSignIn(s, "desk-hand", "front_desk", "hotel:h-hand")
	day := s.ConsoleURL() + "/hotels/h-hand/day"
	require.Eventually(t, func() bool { // the saga's attempt, a moment after the cancel
		b.Visit(day)
		return countOf(t, b, "#owed-at-desk-panel") == 1
	}, 20*time.Second, 200*time.Millisecond, "today's page lists what is due at the desk")
	assert.Equal(t, "Due to guests at the desk (1)", b.Text("#owed-at-desk"))
	assert.Contains(t, b.Text("#owed-at-desk-table"), "EUR 50.00")
	assert.Contains(t, b.Text("#owed-at-desk-table"), "Cash")
	b.Screenshot("hotel-day-owed-at-desk")
	b.AssertAccessible(t, "hotel day with a refund due at the desk")
	b.Submit(`#owed-at-desk-table a[href="/console/bookings/` + id + `"]`) // to the booking, to hand it over
	require.Equal(t, 1, countOf(t, b, "#due-at-desk"), "the booking page says what is due at the desk")
	assert.Contains(t, b.Text("#due-at-desk"), "EUR 50.00 is due to the guest at the desk")
	assert.Equal(t, "Due at the desk", b.Text("#refund-at-desk-0"))
	b.Do(chromedp.Click(chromedp.ID("hand-over-open-0")), chromedp.SetValue(chromedp.ID("hand-over-note-0"), "guest came by at noon"))
	b.Screenshot("hand-over-step")
	b.AssertAccessible(t, "booking page with a refund due at the desk")
	b.Submit("#hand-over-0")
	assert.Contains(t, b.Text(".flash"), "EUR 50.00 handed over (Cash)")
	awaitStatus(t, s, id, "REFUNDED")
	b.Visit(s.ConsoleURL() + "/bookings/" + id)
	b.Screenshot("handed-over")
	assert.Zero(t, countOf(t, b, "#due-at-desk"), "nothing is due at the desk any more")
	assert.Zero(t, countOf(t, b, "#hand-over-open-0"))
	assert.Contains(t, b.Text("#booking-refunds"), "desk-hand", "the refund names who handed it over")
	b.Visit(day)
	assert.Zero(t, countOf(t, b, "#owed-at-desk-panel"), "handed over: today's page owes nothing")
	assert.Equal(t, 1, count(t, s, `SELECT count(*) FROM refunds WHERE booking_id = $1 AND status = 'succeeded'
		AND recorded_by = 'desk-hand' AND reference = 'guest came by at noon'`, id))
}
