package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// Issue 39, defect 10: a desk working in Simplified Chinese met staff actions and the walk-in
// guest's "walk-in:" prefix in English, status cells wrapping one character per line, and date
// fields in the browser's mm/dd/yyyy.

// inChinese switches the browser's console to Simplified Chinese from the page it is on.
func inChinese(b *testsuite.Browser) {
	b.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	b.Submit(`form[action="/console/language"] button`)
}

// lines is how many lines the text of the element sel takes: the height of its text's box over
// its line height (a status wrapped a character a line is three lines or more).
func lines(t *testing.T, b *testsuite.Browser, sel string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[float64](fmt.Sprintf(`(() => {
		const el = document.querySelector(%q), r = document.createRange();
		r.selectNodeContents(el);
		const lh = parseFloat(getComputedStyle(el).lineHeight) || parseFloat(getComputedStyle(el).fontSize) * 1.2;
		return r.getBoundingClientRect().height / lh; })()`, sel)))
	require.NoError(t, err, sel)
	return n
}

// englishAction is a staff action's name as the API records it (check-in, money-desk-payment).
var englishAction = regexp.MustCompile(`\b(check-in|confirm|cancel|money-[a-z-]+|close-units|reopen-units)\b`)

// TestConsoleInSimplifiedChinese: a venue desk switches to Simplified Chinese, books a walk-in
// on a busy grid at 1366 pixels, takes cash and checks the guest in; the guest is a
// walk-in by phone (no "walk-in:" prefix), the statuses stay on one line, the date fields show
// and take YYYY-MM-DD, a date in another form is refused in Chinese, and finance reads the staff
// actions in Chinese.
func TestConsoleInSimplifiedChinese(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day := openBusyVenue(t, s, "v-zh")

	b := testsuite.NewBrowser(t, "zh-desk")
	b.Do(chromedp.EmulateViewport(1366, 900))
	b.DevSignIn(s, "desk-zh", "front_desk", "venue:v-zh")
	inChinese(b)
	b.Visit(s.ConsoleURL() + "/venues/v-zh/day")
	b.Screenshot("venue-day")

	// The date field is text in YYYY-MM-DD whatever the browser's locale, and takes a date typed so.
	assert.Equal(t, "text", b.Attr("#date", "type"), "a date input shows the browser's mm/dd/yyyy")
	assert.Equal(t, day.String(), b.Attr("#date", "value"))
	placeholder, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.querySelector('#date').placeholder`))
	require.NoError(t, err)
	assert.Contains(t, placeholder, "年", "the format is shown in Chinese")
	b.Do(chromedp.SetValue(chromedp.ID("date"), day.AddDays(1).String()))
	b.Submit(`nav form[method=get] button`)
	assert.Contains(t, b.Text("h1"), day.AddDays(1).String())
	b.Visit(s.ConsoleURL() + "/venues/v-zh/day?date=12%2F07%2F2026") // as mm/dd/yyyy
	b.Screenshot("bad-date")
	assert.Contains(t, b.Text("main"), "年-月-日", "the refusal says the form, in Chinese")
	assert.NotContains(t, b.Text("main"), "is not a date")

	b.Visit(s.ConsoleURL() + "/venues/v-zh/day")
	b.Submit(`td[data-resource="court-2"][data-start="10:00"] a[href*="walk-in"]`)
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "+36 30 123 4567"), chromedp.SetValue(chromedp.ID("name"), "Anna Kovacs"))
	b.Submit("#walk-in-book")
	b.Do(chromedp.SetValue(chromedp.ID("pay-method"), "cash"))
	b.Submit("#take-payment")
	b.Submit("#check-in")
	b.Screenshot("booking-checked-in")
	assert.Equal(t, "COMPLETED", b.Attr("#booking-status", "data-status"))
	page := b.Text("main")
	assert.NotContains(t, page, "walk-in:", "the guest is a walk-in by phone")
	assert.Contains(t, page, "散客 +36301234567")
	assert.NotContains(t, b.Text("h1"), "walk-in")
	id := b.Text("main code")

	b.Visit(s.ConsoleURL() + "/venues/v-zh/day")
	b.Screenshot("venue-day-checked-in")
	cell := `td[data-resource="court-2"][data-start="10:00"]`
	assert.Equal(t, "in", cellState(b, "court-2", "10:00"))
	assert.NotContains(t, b.Text(cell), "walk-in:")
	for _, sel := range []string{cell + " strong", `td[data-resource="court-2"][data-start="10:30"] strong`, ".legend .cell-in"} {
		assert.Less(t, lines(t, b, sel), 1.5, "%s is on one line", sel)
	}

	// Finance reads the booking's staff actions in Chinese, and the payment's status on one line.
	f := testsuite.NewBrowser(t, "zh-finance")
	f.Do(chromedp.EmulateViewport(1366, 900))
	f.DevSignIn(s, "fin-zh", "finance", "")
	inChinese(f)
	f.Visit(s.ConsoleURL() + "/bookings/" + id)
	f.Screenshot("booking-finance")
	history := f.Text("#history ~ table:last-of-type")
	assert.NotRegexp(t, englishAction, history, "staff actions are named in Chinese")
	for _, zh := range []string{"前台收款", "签到"} {
		assert.Contains(t, history, zh)
	}
	assert.NotContains(t, f.Text("main"), "walk-in:")
	assert.Less(t, lines(t, f, "#money ~ table tbody td:nth-child(5)"), 1.5, "the payment's status is on one line")
	// A hotel's day: three lists side by side, the guest's column the widest.
	today := domain.DateOf(time.Now(), time.UTC)
	s.DB.SetInventory(t, "h-zh", "double", today, today.AddDays(3), 5)
	bookRoom(t, deskOf(t, s, []string{"h-zh"}, nil), "h-zh", "+447700900123", today, 2, 0)
	f.Visit(s.ConsoleURL() + "/hotels/h-zh/day")
	f.Screenshot("hotel-day")
	assert.NotContains(t, f.Text("#arrivals + table"), "walk-in:")
	assert.Contains(t, f.Text("#arrivals + table"), "散客 +447700900123")
	assert.Less(t, lines(t, f, "#arrivals + table tbody td:last-child"), 1.5, "the arrival's status is on one line")
	f.Visit(s.ConsoleURL() + "/finance/bookings/" + id)
	f.Screenshot("finance-money")
	assert.NotContains(t, strings.ToLower(f.Text("#money-payments")), "succeeded")
}

// openBusyVenue is openMorningVenue's venue with a court-2 in half-hour slots from 07:00 to
// 22:00 today beside it: a sports centre's grid of 30 columns.
func openBusyVenue(t *testing.T, sys *testsuite.System, id string) domain.Date {
	t.Helper()
	day, _ := openMorningVenue(t, sys, id)
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id+"/resources/court-2",
		map[string]any{"kind": "exclusive_slot", "name": "Court 2", "sport": "badminton"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/"+id+"/resources/court-2/schedule", map[string]any{
		"from": day, "to": day.AddDays(1), "opens": "07:00", "closes": "22:00", "slotMinutes": 30,
		"price": map[string]any{"amount": 1000, "currency": "EUR"}})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	return day
}
