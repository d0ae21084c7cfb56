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

// waitlistRow is the text of a cell of the customer's row on a waitlist page.
func waitlistRow(b *testsuite.Browser, customer, cell string) string {
	return b.Text(`#waitlist tr[data-customer="` + customer + `"] ` + cell)
}

// TestConsoleDeskSeesANightsWaitlistOffered: a room is sold out and a guest joins its waitlist;
// the desk opens the night's waitlist from the hotel's day and sees the guest at place 1; the
// hold is cancelled, which offers the room at once, and the page shows the offer's booking.
func TestConsoleDeskSeesANightsWaitlistOffered(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	hotel, stay := "h-wl-"+s.ID, stayFromNow(20, 1)
	openRooms(t, s, hotel, "double", stay, 1)
	holder, guest := s.Customer("holder"), s.Customer("guest")
	res := hold(t, s, "k", holdBody(holder, hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	taken := res.Body["id"].(string)
	res = joinWaitlist(t, s, holdBody(guest, hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	entry := res.Body["id"].(float64)

	b := testsuite.NewBrowser(t, "waitlist")
	b.DevSignIn(s, "desk-wl", "front_desk", "hotel:"+hotel)
	b.Visit(s.ConsoleURL() + "/hotels/" + hotel + "/day?date=" + stay.CheckIn.String())
	b.Submit("#waitlist-double")
	b.Screenshot("waitlist-waiting")
	assert.Contains(t, b.Text("#waitlist-entries"), "1")
	assert.Equal(t, "1", waitlistRow(b, guest, ".place"))
	assert.Equal(t, "Waiting", waitlistRow(b, guest, ".status"))

	require.Equal(t, http.StatusOK, cancel(t, s, holder, taken).Status)
	offer := awaitEntry(t, s, guest, entry, "offered", "")["offerBookingId"].(string)
	b.Visit(b.Location())
	b.Screenshot("waitlist-offered")
	assert.Equal(t, "Offered", waitlistRow(b, guest, ".status"))
	assert.Equal(t, offer, waitlistRow(b, guest, ".offer"))
	b.Submit(`#waitlist tr[data-customer="` + guest + `"] .offer a`)
	assert.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))
}

// TestConsoleDeskOffersWhatIsFreeNow: at a hotel whose fit rule waits, a room freed while the
// first entry asks for two is offered to nobody; switched to skip, the desk's button offers it
// to the second entry, and the page says to whom (a form without its CSRF token offers nothing). Another hotel's
// desk is refused the page with a sentence in its own language.
func TestConsoleDeskOffersWhatIsFreeNow(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	hotel, stay := "h-wlo-"+s.ID, stayFromNow(22, 1)
	openRooms(t, s, hotel, "double", stay, 2)
	settings := "/api/v1/admin/hotels/" + hotel + "/waitlist-settings"
	res := s.Admin(t, http.MethodPut, settings, map[string]any{"offerSeconds": 600, "fit": "wait"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	var held []string
	for _, who := range []string{"one", "two"} {
		res := hold(t, s, "k-"+who, holdBody(s.Customer(who), hotel, "double", stay, 1))
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		held = append(held, res.Body["id"].(string))
	}
	big, small := s.Customer("big"), s.Customer("small")
	res = joinWaitlist(t, s, holdBody(big, hotel, "double", stay, 2))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = joinWaitlist(t, s, holdBody(small, hotel, "double", stay, 1))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	smallEntry := res.Body["id"].(float64)
	require.Equal(t, http.StatusOK, cancel(t, s, s.Customer("one"), held[0]).Status)
	assert.Equal(t, "waiting", waitlistEntry(t, s, small, smallEntry)["status"], "fit wait: nothing past the first")

	b := testsuite.NewBrowser(t, "waitlist-offer")
	b.DevSignIn(s, "desk-wlo", "front_desk", "hotel:"+hotel)
	b.Visit(s.ConsoleURL() + "/hotels/" + hotel + "/day?date=" + stay.CheckIn.String())
	b.Submit("#waitlist-double")
	page := b.Location()
	assert.Equal(t, "1", waitlistRow(b, big, ".place"))
	assert.Equal(t, "2", waitlistRow(b, small, ".place"))
	assert.Equal(t, "Waiting", waitlistRow(b, small, ".status"))

	res = s.Admin(t, http.MethodPut, settings, map[string]any{"offerSeconds": 600, "fit": "skip"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	product := map[string]string{"hotelId": hotel, "roomTypeId": "double", "checkIn": stay.CheckIn.String(),
		"checkOut": stay.CheckOut.String()}
	assert.Equal(t, http.StatusForbidden, b.PostForm(testsuite.ConsolePath("/waitlist/offers"), product, false))
	assert.Equal(t, "waiting", waitlistEntry(t, s, small, smallEntry)["status"], "a form without its CSRF token offers nothing")
	b.Submit("#waitlist-offer")
	b.Screenshot("offered")
	offer := waitlistEntry(t, s, small, smallEntry)
	require.Equal(t, "offered", offer["status"])
	assert.Contains(t, b.Text(".flash"), small)
	assert.Contains(t, b.Text(".flash"), offer["offerBookingId"].(string))
	assert.Equal(t, "Offered", waitlistRow(b, small, ".status"))
	assert.Equal(t, "1", waitlistRow(b, big, ".place"), "the skipped entry keeps its place")

	elsewhere := "h-else-" + s.ID
	openRooms(t, s, elsewhere, "double", stay, 1)
	other := testsuite.NewBrowser(t, "waitlist-other")
	other.DevSignIn(s, "desk-else", "front_desk", "hotel:"+elsewhere)
	status, err := chromedp.Run(other.Ctx, chromedp.NavigateResponse(page))
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, int(status.Status))
	assert.Contains(t, other.Text("main"), "You do not work for "+hotel)
	other.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	other.Submit(`form[action="/console/language"] button`)
	other.Visit(page)
	other.Screenshot("refused-zh")
	assert.Contains(t, other.Text("main"), "您不负责 "+hotel)
	assert.Equal(t, http.StatusForbidden, other.PostForm(testsuite.ConsolePath("/waitlist/offers"), product, true))
	checkInvariants(t, s)
}

// TestConsoleSlotsWaitlistOpensFromTheGrid: a venue's desk opens a sold-out court slot's
// waitlist from the day's grid and sees the guest waiting at place 1, with the slot in the
// venue's time.
func TestConsoleSlotsWaitlistOpensFromTheGrid(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	venue := "v-wl-" + s.ID
	day, loc := openMorningVenue(t, s, venue)
	start := day.At(12, loc)
	line := map[string]any{"resourceId": "court-1", "start": start, "end": start.Add(time.Hour), "quantity": 1}
	res := placeOrder(t, s, venue, s.Customer("holder"), "o-1", line)
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	waiter := s.Customer("waiter")
	res = joinWaitlist(t, s, map[string]any{"customerId": waiter, "venueId": venue, "resourceId": "court-1",
		"start": start, "end": start.Add(time.Hour), "quantity": 1})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)

	b := testsuite.NewBrowser(t, "slot-waitlist")
	b.DevSignIn(s, "desk-v", "front_desk", "venue:"+venue)
	b.Visit(s.ConsoleURL() + "/venues/" + venue + "/day")
	b.Submit(`td[data-resource="court-1"][data-start="12:00"] a.waitlist`)
	b.Screenshot("slot-waitlist")
	assert.Equal(t, "court-1 on "+day.String()+", 12:00 to 13:00", b.Text("#waitlist-product"))
	assert.Equal(t, "1", waitlistRow(b, waiter, ".place"))
	assert.Equal(t, "Waiting", waitlistRow(b, waiter, ".status"))
}
