package testsuite_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// Issue 39, tests and measures: every page the desk, finance and an admin see passes axe-core's
// WCAG 2.1 A and AA rules (AssertAccessible), in English and, for one page, in Chinese.

// TestConsoleAccessibility visits the sign-in page, the sites, a hotel's and a venue's day
// (held, paid and closed slots, a closure refused), the walk-in form (and refused), a booking
// held, confirmed and checked in, the search's results, the error page, the waitlist and the
// blocks as a desk; the finance pages as finance; the admin pages as an admin; and the hotel's
// day in Simplified Chinese. Each page's violations are reported together.
func TestConsoleAccessibility(t *testing.T) {
	t.Parallel()
	hotel, venue := "h-a11y", "v-a11y"
	s, today, desk := hotelDesk(t, hotel, 4)
	day, loc := openMorningVenue(t, s, venue)
	venueDesk := deskOf(t, s, nil, []string{venue})
	courtOrder(t, venueDesk, venue, "court-1", "+36301110001", day.At(10, loc)) // held
	paid := courtOrder(t, venueDesk, venue, "court-1", "+36301110002", day.At(11, loc))
	res := venueDesk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+paid+"/desk-payments", keyed("a11y-pay"),
		map[string]any{"amount": 2000, "currency": "EUR", "method": "cash"})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	held := bookRoom(t, desk, hotel, "+447700900201", today.AddDays(1), 1, 0)
	confirmed := bookRoom(t, desk, hotel, "+447700900202", today.AddDays(2), 1, 10000)
	arrived := bookRoom(t, desk, hotel, "+447700900203", today, 1, 10000)
	res = desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+arrived+"/check-in", nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	stay := stayFromNow(40, 2)
	openRooms(t, s, hotel, "double", stay, 6)
	res = blockDesk(t, s, hotel).Do(t, http.MethodPost, "/api/v1/staff/hotels/"+hotel+"/blocks", nil,
		blockBody("A11Y", stay, 3, map[string]any{"kind": "rolling", "days": 10, "time": "18:00"}))
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	block := res.Body["id"].(string)

	b := testsuite.NewBrowser(t, "a11y")
	visit := func(name, path string) {
		t.Helper()
		b.Visit(s.ConsoleURL() + path)
		b.AssertAccessible(t, name)
	}
	visit("sign-in", "/sign-in")

	b.DevSignIn(s, "desk-a11y", "front_desk", "hotel:"+hotel)
	visit("sites", "/")
	visit("hotel day", "/hotels/"+hotel+"/day")
	visit("booking held", "/bookings/"+held)
	visit("booking confirmed", "/bookings/"+confirmed)
	visit("booking checked in", "/bookings/"+arrived)
	visit("search results", "/search?q=7700900202")
	visit("error page", "/bookings/booking-aaaaaaaaaaaaaaaaaaaaaaaaaa")
	visit("waitlist", "/waitlist?hotelId="+hotel+"&roomTypeId=double&checkIn="+stay.CheckIn.String()+
		"&checkOut="+stay.CheckOut.String())
	visit("blocks", "/hotels/"+hotel+"/blocks")
	visit("block", "/blocks/"+block)

	b.DevSignIn(s, "venue-desk-a11y", "front_desk", "venue:"+venue)
	visit("venue day", "/venues/"+venue+"/day")
	// Closing the paid slot is refused, naming its booking; closed keeping it, the cell says why.
	b.Do(chromedp.SetValue(chromedp.ID("close-resource"), "court-1"), chromedp.SetValue(chromedp.ID("close-reason"), "rain"))
	b.Do(chromedp.SetValue(chromedp.ID("close-start"), b.OptionValue("#close-start", "11:00")))
	b.Submit("#close-units")
	b.AssertAccessible(t, "venue closure refused")
	b.Submit("#close-keeping")
	b.AssertAccessible(t, "venue day with a closed slot")
	b.Submit(`a[href*="/walk-in?"]`)
	b.AssertAccessible(t, "walk-in form")
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "06 30 12"), chromedp.SetValue(chromedp.ID("name"), "Kovács Anna"))
	b.Submit("#walk-in-book")
	b.AssertAccessible(t, "walk-in form refused")

	b.DevSignIn(s, "fin-a11y", "finance", "")
	visit("finance", "/finance")
	visit("finance report", "/finance/report?site=hotel:"+hotel)
	visit("finance booking money", "/finance/bookings/"+confirmed)
	visit("finance stuck refunds", "/finance/stuck")
	visit("finance webhooks", "/finance/webhooks")
	visit("finance manual refund", "/finance/manual-refunds")
	visit("finance cash-up", "/finance/cash-up?site=hotel:"+hotel)

	b.DevSignIn(s, "admin-a11y", "admin", "")
	visit("admin", "/admin")
	visit("admin hotel", "/admin/hotels/"+hotel)
	visit("admin rate plans", "/admin/hotels/"+hotel+"/rate-plans")
	visit("admin restrictions", "/admin/hotels/"+hotel+"/restrictions")
	visit("admin venue", "/admin/venues/"+venue)

	b.DevSignIn(s, "desk-a11y", "front_desk", "hotel:"+hotel)
	b.Visit(s.ConsoleURL() + "/hotels/" + hotel + "/day")
	inChinese(b)
	b.AssertAccessible(t, "hotel day in Chinese")
}
