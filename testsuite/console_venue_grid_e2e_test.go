package testsuite_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// openMixedVenue opens venue id in Budapest on day with units of every length and kind: a
// 60-minute court, two 30-minute lanes, 90-minute classes (from 07:30), rackets by the hour
// and lockers by the day, from 07:00 to 22:00.
func openMixedVenue(t *testing.T, sys *testsuite.System, id string, day domain.Date) {
	t.Helper()
	res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id, map[string]any{"name": "Mixed hall", "timeZone": "Europe/Budapest"})
	require.Equal(t, http.StatusCreated, res.Status, res.Raw)
	eur := func(n int) map[string]any { return map[string]any{"amount": n, "currency": "EUR"} }
	for _, r := range []struct {
		id       string
		resource map[string]any
		schedule map[string]any
	}{
		{"court-1", map[string]any{"kind": "exclusive_slot", "name": "Court 1", "sport": "badminton"},
			map[string]any{"opens": "07:00", "closes": "22:00", "slotMinutes": 60, "price": eur(2000)}},
		{"lane-1", map[string]any{"kind": "quota_slot", "name": "Lane 1", "sport": "swimming", "capacity": 6},
			map[string]any{"opens": "07:00", "closes": "22:00", "slotMinutes": 30, "price": eur(500)}},
		{"lane-2", map[string]any{"kind": "quota_slot", "name": "Lane 2", "sport": "swimming", "capacity": 6},
			map[string]any{"opens": "07:00", "closes": "22:00", "slotMinutes": 30, "price": eur(500)}},
		{"class-1", map[string]any{"kind": "quota_slot", "name": "Spinning", "sport": "fitness", "capacity": 12},
			map[string]any{"opens": "07:30", "closes": "21:00", "slotMinutes": 90, "price": eur(1200)}},
		{"rackets", map[string]any{"kind": "equipment", "unit": "hour", "name": "Rackets", "capacity": 10},
			map[string]any{"opens": "07:00", "closes": "22:00", "price": eur(300)}},
		{"lockers", map[string]any{"kind": "equipment", "unit": "day", "name": "Lockers", "capacity": 20},
			map[string]any{"price": eur(400)}},
	} {
		res := sys.Admin(t, http.MethodPut, "/api/v1/admin/venues/"+id+"/resources/"+r.id, r.resource)
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		r.schedule["from"], r.schedule["to"] = day, day.AddDays(1)
		res = sys.Admin(t, http.MethodPost, "/api/v1/admin/venues/"+id+"/resources/"+r.id+"/schedule", r.schedule)
		require.Equal(t, http.StatusOK, res.Status, res.Raw)
	}
}

// box is an element's place on the page, in CSS pixels.
type box struct{ Left, Right, Width float64 }

func boxOf(t *testing.T, b *testsuite.Browser, sel string) box {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[box](fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return {Left: r.left, Right: r.right, Width: r.width}; })()`, sel)))
	require.NoError(t, err, sel)
	return out
}

func slotCell(resource, hhmm string) string {
	return fmt.Sprintf(`td[data-resource=%q][data-start=%q]`, resource, hhmm)
}

// TestConsoleVenueGridOnOneTimeAxis (issue 39, the venue grid): at 1366x768 the desk's day
// shows a 60-minute court, 30-minute lanes, 90-minute classes, rackets by the hour and lockers by
// the day on one time axis, each cell as wide as its unit is long and placed by its start, with
// no horizontal scrolling. At 10:20 at the venue the now line crosses every row at 10:20; the
// slots that have ended are greyed out and offered for nothing, while a slot under way is still
// sold by the desk (defect 3). The desk records a late arrival, which the grid shows and the audit
// log keeps; the booking stays as it was. The page passes axe.
func TestConsoleVenueGridOnOneTimeAxis(t *testing.T) {
	t.Parallel()
	var shift atomic.Int64
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true, Now: func() time.Time {
		return time.Now().Add(time.Duration(shift.Load()))
	}})
	loc, err := time.LoadLocation("Europe/Budapest")
	require.NoError(t, err)
	day := domain.DateOf(time.Now(), loc).AddDays(2)
	openMixedVenue(t, s, "v-grid", day)
	desk := deskOf(t, s, nil, []string{"v-grid"})

	// Bookings made the day before: a swim at 08:00 (over by the time the grid is read), the
	// court from 10:00 with two rackets until 12:00, and a locker for the day.
	at := func(h, m int) time.Time { return day.At(h, loc).Add(time.Duration(m) * time.Minute) }
	order := func(key, phone string, lines ...map[string]any) string {
		res := desk.Do(t, http.MethodPost, "/api/v1/staff/venues/v-grid/bookings", keyed(key),
			map[string]any{"phone": phone, "lines": lines})
		require.Equal(t, http.StatusCreated, res.Status, res.Raw)
		return res.Body["id"].(string)
	}
	line := func(resource string, from, to time.Time, n int) map[string]any {
		return map[string]any{"resourceId": resource, "start": from, "end": to, "quantity": n}
	}
	order("swim", "+36301110001", line("lane-1", at(8, 0), at(8, 30), 1))
	court := order("court", "+36301110002", line("court-1", at(10, 0), at(11, 0), 1), line("rackets", at(10, 0), at(12, 0), 2))
	order("locker", "+36301110003", line("lockers", day.At(0, loc), day.AddDays(1).At(0, loc), 1))

	shift.Store(int64(time.Until(at(10, 20)))) // 10:20 at the venue, on the day
	b := testsuite.NewBrowser(t, "venue-grid")
	b.Do(chromedp.EmulateViewport(1366, 768))
	b.DevSignIn(s, "desk-grid", "front_desk", "venue:v-grid")
	b.Visit(s.ConsoleURL() + "/venues/v-grid/day?date=" + day.String())
	b.Screenshot("mixed-day-at-1366")

	// No horizontal scrolling at 1366 pixels.
	width, err := chromedp.Run(b.Ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
	require.NoError(t, err)
	assert.LessOrEqual(t, width, 1366.0, "the page scrolls sideways")

	// One axis: a cell's width is its length, its left edge its start.
	hour := boxOf(t, b, slotCell("court-1", "10:00"))
	half, half2 := boxOf(t, b, slotCell("lane-1", "10:00")), boxOf(t, b, slotCell("lane-1", "10:30"))
	class := boxOf(t, b, slotCell("class-1", "10:30"))
	rackets := boxOf(t, b, slotCell("rackets", "10:00"))
	assert.InDelta(t, hour.Width/2, half.Width, 2, "a 30-minute lane is half a 60-minute court")
	assert.InDelta(t, hour.Width*1.5, class.Width, 3, "a 90-minute class is one and a half")
	assert.InDelta(t, hour.Width, rackets.Width, 2, "an hour of rackets is an hour")
	assert.InDelta(t, hour.Left, half.Left, 2, "the court and the lane start at 10:00 together")
	assert.InDelta(t, half2.Left, class.Left, 2, "the lane's 10:30 and the class's 10:30 line up")
	assert.Greater(t, hour.Width, 50.0, "an hour is wide enough to read")
	lockers := boxOf(t, b, `tr[data-kind="equipment"] td[data-resource="lockers"]`)
	table := boxOf(t, b, "table.timeline")
	assert.InDelta(t, table.Right, lockers.Right+1, 3, "a locker's day runs to the axis's end")

	// The now line: at 10:20, a third into the 10:00 court, the same x in every row.
	assert.Contains(t, b.Text("#now-clock"), "10:20")
	line1020 := hour.Left + hour.Width/3
	xs, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll('#grid .now-line')].map(
		l => l.getBoundingClientRect().left + l.getBoundingClientRect().width / 2)`))
	require.NoError(t, err)
	require.Len(t, xs, 7, "the header and the six rows")
	for _, x := range xs {
		assert.InDelta(t, line1020, x, 3, "the now line is at 10:20 in every row")
	}

	// Ended slots are grey and offer nothing; a slot under way is still sold by the desk.
	past := slotCell("lane-1", "08:00")
	assert.Equal(t, "true", b.Attr(past, "data-past"))
	bg, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](fmt.Sprintf(`getComputedStyle(document.querySelector(%q)).backgroundColor`, past)))
	require.NoError(t, err)
	assert.Equal(t, "rgb(240, 240, 240)", bg)
	for _, sel := range []string{past + ` a[href*="walk-in"]`, past + ` a.waitlist`, slotCell("lane-2", "09:30") + ` a[href*="walk-in"]`} {
		n, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
		require.NoError(t, err)
		assert.Zero(t, n, "%s: an ended slot is offered for nothing", sel)
	}
	ended, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).hasAttribute('data-past')`,
		slotCell("lane-2", "10:00"))))
	require.NoError(t, err)
	assert.False(t, ended, "the control: a slot under way has not ended")
	assert.Contains(t, b.Text(slotCell("rackets", "10:00")), "8 of 10", "the rackets rented show on the grid")
	b.AssertAccessible(t, "venue grid on one time axis")

	// The desk records that the court's guest came at 10:20: kept, noted, audited, shown.
	b.Submit(slotCell("court-1", "10:00") + ` form.late-arrival button`)
	b.Screenshot("late-arrival-recorded")
	assert.Contains(t, b.Text(".flash"), "20 min")
	assert.Equal(t, "20", b.Attr(slotCell("court-1", "10:00")+" .late", "data-late"))
	assert.Contains(t, b.Text(slotCell("court-1", "10:00")), "late 20 min")
	var status string
	var late int
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT b.status, l.minutes_late FROM bookings b
		JOIN booking_late_arrivals l ON l.booking_id = b.id WHERE b.id = $1`, court).Scan(&status, &late))
	assert.Equal(t, []any{"HOLD", 20}, []any{status, late}, "the booking is kept as it was")
	var audited int
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_log
		WHERE booking_id = $1 AND action = 'late-arrival' AND actor = 'desk-grid'`, court).Scan(&audited))
	assert.Equal(t, 1, audited)

	// The API: an arrival in the future is refused; staff lists carry the late arrival.
	res := desk.Do(t, http.MethodPost, "/api/v1/staff/bookings/"+court+"/late-arrival", nil, map[string]any{"arrivedAt": at(11, 0)})
	assert.Equal(t, http.StatusBadRequest, res.Status, res.Raw)
	res = desk.Do(t, http.MethodGet, "/api/v1/staff/bookings?venueId=v-grid&date="+day.String(), nil, nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Contains(t, res.Raw, `"minutesLate":20`)

	// The lane under way (10:00-10:30) is sold at the desk for its rest.
	b.Submit(slotCell("lane-2", "10:00") + ` a[href*="walk-in"]`)
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "+36 30 111 0004"), chromedp.SetValue(chromedp.ID("name"), "Late Swimmer"))
	b.Submit("#walk-in-book")
	b.Screenshot("under-way-sold")
	assert.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))

	// Three rackets from 11:00, rented from the grid: the form asks how many.
	b.Visit(s.ConsoleURL() + "/venues/v-grid/day?date=" + day.String())
	b.Submit(slotCell("rackets", "11:00") + ` a[href*="walk-in"]`)
	b.Do(chromedp.SetValue(chromedp.ID("phone"), "+36 30 111 0005"), chromedp.SetValue(chromedp.ID("quantity"), "3"))
	b.Submit("#walk-in-book")
	assert.Equal(t, "HOLD", b.Attr("#booking-status", "data-status"))
	b.Visit(s.ConsoleURL() + "/venues/v-grid/day?date=" + day.String())
	assert.Contains(t, b.Text(slotCell("rackets", "11:00")), "5/10", "two with the court, three rented at the desk")

	// In Simplified Chinese the grid fits too.
	inChinese(b)
	b.Visit(s.ConsoleURL() + "/venues/v-grid/day?date=" + day.String())
	b.Screenshot("mixed-day-zh")
	width, err = chromedp.Run(b.Ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
	require.NoError(t, err)
	assert.LessOrEqual(t, width, 1366.0, "the page scrolls sideways in Chinese")
	assert.Contains(t, b.Text(slotCell("court-1", "10:00")), "迟到 20 分钟")
	b.AssertAccessible(t, "venue grid in Chinese")
}
