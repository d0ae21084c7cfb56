package testsuite_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// TestConsoleDeskWritesDownAGuestAndFindsThem (issue 39, what the desk needs 1 and 2): a
// reception books a walk-in by phone alone, writes down the guest on the booking page (a
// refused e-mail comes back beside its field, the form as typed), sees the guest's name on
// today's arrivals, and from another page finds the booking by a part of the name and by the
// phone's digits, landing on it; a query too short is explained; the search reads in
// Simplified Chinese.
func TestConsoleDeskWritesDownAGuestAndFindsThem(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	today := domain.DateOf(time.Now(), time.UTC)
	s.DB.SetInventory(t, "h-desk", "double", today, today.AddDays(5), 3)
	b := testsuite.NewBrowser(t, "search")
	b.DevSignIn(s, "reception-1", "front_desk", "hotel:h-desk")

	b.Visit(s.ConsoleURL() + "/hotels/h-desk/day")
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "+44 7700 900123"))
	b.Submit("#hotel-walk-in")
	require.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))
	id := b.Text("main code")

	// A refused e-mail: the form comes back as typed, the error beside the field.
	b.Do(chromedp.SetValue(chromedp.ID("guest-name"), "Grace Hopper"), chromedp.SetValue(chromedp.ID("guest-phone"), "+44 7700 900456"),
		chromedp.SetValue(chromedp.ID("guest-email"), "not-an-address"), chromedp.SetValue(chromedp.ID("guest-guests"), "2"),
		chromedp.SetValue(chromedp.ID("guest-arrival"), "15:30"), chromedp.SetValue(chromedp.ID("guest-notes"), "Quiet room, late check-in"))
	b.Submit("#guest-save")
	b.Screenshot("guest-refused")
	assert.NotEmpty(t, b.Text("#err-email"))
	assert.Equal(t, "true", b.Attr("#guest-email", "aria-invalid"))
	assert.Equal(t, "Grace Hopper", b.Attr("#guest-name", "value"), "the form comes back as typed")
	notes, err := chromedp.Run(b.Ctx, chromedp.Value(chromedp.ID("guest-notes")))
	require.NoError(t, err)
	assert.Equal(t, "Quiet room, late check-in", notes)

	b.Do(chromedp.SetValue(chromedp.ID("guest-email"), "grace@example.com"))
	b.Submit("#guest-save")
	b.Screenshot("guest-written-down")
	assert.Equal(t, "Grace Hopper", b.Text("#guest-shown-name"))
	assert.Equal(t, "+447700900456", b.Text("#guest-shown-phone"))
	assert.Equal(t, "grace@example.com", b.Text("#guest-shown-email"))
	assert.Contains(t, b.Text("h1"), "Grace Hopper", "the page is named by its guest")

	b.Visit(s.ConsoleURL() + "/hotels/h-desk/day")
	b.Screenshot("guest-on-arrivals")
	assert.Contains(t, b.Text("#arrivals + table"), "Grace Hopper")

	// From the day's page, by part of the name.
	b.Do(chromedp.SetValue(chromedp.ID("search-q"), "hopp"))
	b.Submit("#search-go")
	b.Screenshot("search-by-name")
	assert.Contains(t, b.Location(), "/console/search?q=hopp")
	assert.Contains(t, b.Text("#search-results"), "Grace Hopper")
	assert.Contains(t, b.Text("#search-results"), id)
	b.Submit("#search-results a")
	assert.Contains(t, b.Location(), "/console/bookings/"+id)

	// From the blocks page, by the phone's digits as typed another way.
	b.Visit(s.ConsoleURL() + "/hotels/h-desk/blocks")
	b.Do(chromedp.SetValue(chromedp.ID("search-q"), "7700 900-456"))
	b.Submit("#search-go")
	b.Screenshot("search-by-phone")
	assert.Contains(t, b.Text("#search-results"), "Grace Hopper")
	b.Submit("#search-results a")
	assert.Contains(t, b.Location(), "/console/bookings/"+id)

	b.Visit(s.ConsoleURL() + "/search?q=a")
	assert.NotEmpty(t, b.Text("#search-short"))
	b.Visit(s.ConsoleURL() + "/search?q=nobody-like-this")
	assert.NotEmpty(t, b.Text("#search-none"))

	b.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	b.Submit(`form[action="/console/language"] button`)
	b.Visit(s.ConsoleURL() + "/search?q=hopp")
	b.Screenshot("search-zh")
	assert.Equal(t, "搜索预订", b.Text(`label[for="search-q"]`))
	assert.True(t, strings.Contains(b.Text("main"), "Grace Hopper"))
	b.Visit(s.ConsoleURL() + "/bookings/" + id)
	b.Screenshot("guest-zh")
	assert.Contains(t, b.Text("#guest-heading"), "客人")
}
