package testsuite_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// set fills the form fields by id with their values.
func set(b *testsuite.Browser, fields ...string) {
	steps := []chromedp.Action[chromedp.Void]{}
	for i := 0; i+1 < len(fields); i += 2 {
		steps = append(steps, chromedp.SetValue(chromedp.ID(fields[i]), fields[i+1]))
	}
	b.Do(steps...)
}

// An admin builds a venue (its terms, a court and the court's schedule) and a hotel (its first
// room type with rooms and a rate, a cheaper rate on some nights, its cancellation policy)
// through the console's forms alone, and the database holds what the forms said.
func TestConsoleAdminBuildsAVenueAndAHotel(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	ctx := context.Background()
	b := testsuite.NewBrowser(t, "admin")
	b.DevSignIn(s, "admin-1", "admin", "")

	b.Visit(s.ConsoleURL() + "/admin")
	b.Screenshot("admin")
	set(b, "venue-id", "riverside", "venue-name", "Riverside Courts", "venue-zone", "Asia/Shanghai",
		"venue-window", "20", "venue-cancel", "12", "venue-grace", "10")
	b.Submit("#create-venue")
	require.Contains(t, b.Location(), "/console/admin/venues/riverside")
	assert.Contains(t, b.Text(".flash"), "Venue riverside saved (time zone Asia/Shanghai)")
	b.Screenshot("venue-created")
	var name, zone string
	var window, cancel, grace int
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT name, time_zone, payment_window_seconds, free_cancel_hours,
		no_show_grace_minutes FROM venues WHERE id = 'riverside'`).Scan(&name, &zone, &window, &cancel, &grace))
	assert.Equal(t, []any{"Riverside Courts", "Asia/Shanghai", 20 * 60, 12, 10}, []any{name, zone, window, cancel, grace})

	// The terms form shows what is stored and changes one term.
	set(b, "terms-window", "30")
	b.Submit("#save-terms")
	assert.Contains(t, b.Text(".flash"), "payment window 30 min, free cancellation until 12 h before, no-show 10 min")
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT payment_window_seconds FROM venues WHERE id = 'riverside'`).Scan(&window))
	assert.Equal(t, 30*60, window)

	set(b, "new-resource-id", "court-1", "new-resource-kind", "exclusive_slot", "new-resource-name", "Court 1",
		"new-resource-sport", "tennis", "new-resource-capacity", "1")
	b.Submit("#add-resource")
	assert.Contains(t, b.Text(".flash"), "Resource court-1 saved")
	assert.Contains(t, b.Text("#venue-resources"), "Court 1")
	b.Screenshot("resource-created")
	var kind, sport string
	var capacity int
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT kind, name, sport, capacity FROM resources
		WHERE venue_id = 'riverside' AND code = 'court-1'`).Scan(&kind, &name, &sport, &capacity))
	assert.Equal(t, []any{"exclusive_slot", "Court 1", "tennis", 1}, []any{kind, name, sport, capacity})

	shanghai, err := time.LoadLocation("Asia/Shanghai")
	require.NoError(t, err)
	today := time.Now().In(shanghai)
	day := func(n int) string { return today.AddDate(0, 0, n).Format(time.DateOnly) }
	set(b, "sched-from-court-1", day(1), "sched-to-court-1", day(3), "sched-opens-court-1", "09:00",
		"sched-closes-court-1", "12:00", "sched-minutes-court-1", "60", "sched-amount-court-1", "80.50",
		"sched-currency-court-1", "CNY")
	b.Submit("#apply-schedule-court-1")
	assert.Contains(t, b.Text(".flash"), "Schedule of court-1 applied: 6 units laid out, 6 created, 0 removed")
	units1 := b.Text("#units-court-1")
	assert.Contains(t, units1, "09:00–10:00", "the page opens on the schedule's first day, in the venue's time")
	assert.Contains(t, units1, "CNY 80.50")
	b.Screenshot("schedule-applied")
	units := func() (n int, first time.Time, rates []int64) {
		rows, err := s.DB.Pool.Query(ctx, `SELECT i.unit_start, i.rate FROM inventory i JOIN resources r ON r.id = i.resource_id
			WHERE r.venue_id = 'riverside' AND r.code = 'court-1' AND i.currency = 'CNY' ORDER BY i.unit_start`)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			var start time.Time
			var rate int64
			require.NoError(t, rows.Scan(&start, &rate))
			if n == 0 {
				first = start
			}
			n++
			rates = append(rates, rate)
		}
		require.NoError(t, rows.Err())
		return n, first, rates
	}
	n, first, rates := units()
	require.Equal(t, 6, n)
	assert.Equal(t, day(1)+" 09:00", first.In(shanghai).Format("2006-01-02 15:04"), "the first slot opens at 09:00 in Shanghai")
	for _, r := range rates {
		assert.EqualValues(t, 8050, r, "80.50 CNY typed is 8050 fen")
	}

	// A class's capacity is changed through its own form.
	set(b, "new-resource-id", "lane-1", "new-resource-kind", "quota_slot", "new-resource-name", "Lane 1",
		"new-resource-sport", "swim", "new-resource-capacity", "6")
	b.Submit("#add-resource")
	set(b, "res-capacity-lane-1", "8")
	b.Submit("#save-resource-lane-1")
	assert.Contains(t, b.Text(".flash"), "Resource lane-1 saved: quota_slot, capacity 8")
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT capacity FROM resources WHERE venue_id = 'riverside' AND code = 'lane-1'`).Scan(&capacity))
	assert.Equal(t, 8, capacity)
	shownCapacity, err := chromedp.Run(b.Ctx, chromedp.Value(chromedp.ID("res-capacity-lane-1")))
	require.NoError(t, err)
	assert.Equal(t, "8", shownCapacity, "the form shows the capacity stored")

	// Refused by the API: the error page gives its message, and nothing is written.
	set(b, "sched-from-court-1", day(5), "sched-to-court-1", day(6), "sched-opens-court-1", "18:00",
		"sched-closes-court-1", "09:00", "sched-amount-court-1", "80", "sched-currency-court-1", "CNY")
	b.Submit("#apply-schedule-court-1")
	assert.Equal(t, "That could not be done", b.Text("h1"))
	assert.Contains(t, b.Text(".error"), "closes must be after opens")
	b.Screenshot("schedule-refused")
	n, _, _ = units()
	assert.Equal(t, 6, n, "a refused schedule writes nothing")
	var audits int
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'apply-schedule'`).Scan(&audits))
	assert.Equal(t, 1, audits, "only the applied schedule is audited")

	// A hotel: its first room type, then a cheaper rate on two nights, then its policy.
	lisbon, err := time.LoadLocation("Europe/Lisbon")
	require.NoError(t, err)
	night := func(n int) string { return time.Now().In(lisbon).AddDate(0, 0, n).Format(time.DateOnly) }
	b.Visit(s.ConsoleURL() + "/admin")
	set(b, "hotel-id", "harbour", "hotel-zone", "Mars/Olympus", "hotel-room", "double", "hotel-from", night(1),
		"hotel-to", night(8), "hotel-total", "5")
	b.Submit("#create-hotel")
	assert.Contains(t, b.Text(".error"), `timeZone "Mars/Olympus" is not an IANA time zone name`)
	var hotels int
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM hotels WHERE id = 'harbour'`).Scan(&hotels))
	assert.Zero(t, hotels, "a refused hotel is not made")
	b.Visit(s.ConsoleURL() + "/admin")
	set(b, "hotel-id", "harbour", "hotel-zone", "Europe/Lisbon", "hotel-room", "double", "hotel-from", night(1),
		"hotel-to", night(8), "hotel-total", "5", "hotel-rate", "120.00", "hotel-currency", "EUR")
	b.Screenshot("hotel-form")
	b.Submit("#create-hotel")
	require.Contains(t, b.Location(), "/console/admin/hotels/harbour")
	assert.Contains(t, b.Text(".flash"), "harbour, double: 5 rooms on 7 nights")
	assert.Contains(t, b.Text("#stock-double"), "5")
	b.Screenshot("hotel-created")
	require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT time_zone FROM hotels WHERE id = 'harbour'`).Scan(&zone))
	assert.Equal(t, "Europe/Lisbon", zone)
	nights := func() map[int64]int {
		rows, err := s.DB.Pool.Query(ctx, `SELECT i.rate, count(*) FROM inventory i JOIN resources r ON r.id = i.resource_id
			WHERE r.hotel_id = 'harbour' AND r.code = 'double' AND i.total = 5 AND i.currency = 'EUR' GROUP BY i.rate`)
		require.NoError(t, err)
		defer rows.Close()
		out := map[int64]int{}
		for rows.Next() {
			var rate int64
			var n int
			require.NoError(t, rows.Scan(&rate, &n))
			out[rate] = n
		}
		require.NoError(t, rows.Err())
		return out
	}
	assert.Equal(t, map[int64]int{12000: 7}, nights())

	set(b, "rates-from-double", night(2), "rates-to-double", night(4), "rates-rate-double", "99.5", "rates-currency-double", "EUR")
	b.Submit("#set-rates-double")
	assert.Contains(t, b.Text(".flash"), "Rate of double set to EUR 99.50 on 2 nights")
	b.Screenshot("rates-set")
	assert.Equal(t, map[int64]int{12000: 5, 9950: 2}, nights())

	// An amount with more decimals than the currency has is refused before the API is asked.
	set(b, "rates-from-double", night(2), "rates-to-double", night(4), "rates-rate-double", "99.555", "rates-currency-double", "EUR")
	b.Submit("#set-rates-double")
	assert.Contains(t, b.Text(".error"), "Nothing was changed")
	assert.Equal(t, map[int64]int{12000: 5, 9950: 2}, nights())
	b.Visit(s.ConsoleURL() + "/admin/hotels/harbour")

	set(b, "policy-free", "48", "policy-percent", "0", "policy-fixed", "25", "policy-currency", "EUR",
		"policy-norefund", "12", "policy-early", "all_but_first")
	b.Submit("#save-policy")
	assert.Contains(t, b.Text(".flash"), "free until 48 h before, then a fee of EUR 25.00, no refund from 12 h before")
	b.Screenshot("policy-set")
	res := s.Admin(t, http.MethodGet, "/api/v1/admin/hotels/harbour/cancellation-policy", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.EqualValues(t, 48, res.Body["freeUntilHours"])
	assert.EqualValues(t, 2500, res.Body["feeFixed"])
	assert.Equal(t, "EUR", res.Body["feeCurrency"])
	assert.EqualValues(t, 12, res.Body["noRefundHours"])
	assert.Equal(t, "all_but_first", res.Body["earlyDeparture"])
	shown, err := chromedp.Run(b.Ctx, chromedp.Value(chromedp.ID("policy-fixed")))
	require.NoError(t, err)
	assert.Equal(t, "25.00", shown, "the form shows the stored fee")

	// The admin home lists both sites with what they sell.
	b.Visit(s.ConsoleURL() + "/admin")
	sites := b.Text("#admin-sites")
	assert.Contains(t, sites, "Riverside Courts")
	assert.Contains(t, sites, "Court 1 (court-1)")
	assert.Contains(t, sites, "harbour")
	b.Screenshot("sites")

	// In Simplified Chinese.
	b.Visit(s.ConsoleURL() + "/admin/venues/riverside")
	b.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	b.Submit(`form[action="/console/language"] button`)
	assert.Equal(t, "场馆 riverside: Riverside Courts", b.Text("h1"))
	assert.Contains(t, b.Text("#terms-heading"), "名称与条款")
	b.Screenshot("venue-zh")
}

// The admin pages are admins' only: a front desk gets the console's 403 page.
func TestConsoleAdminIsForAdmins(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day := time.Now().UTC().Format(time.DateOnly)
	res := s.Admin(t, http.MethodPut, "/api/v1/admin/hotels/grand-budapest/room-types/double/inventory",
		map[string]any{"from": day, "to": time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly), "totalRooms": 2})
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	b := testsuite.NewBrowser(t, "desk")
	b.DevSignIn(s, "desk-1", "front_desk", "hotel:grand-budapest")
	b.Visit(s.ConsoleURL() + "/admin/hotels/grand-budapest")
	b.Screenshot("admin-refused")
	assert.Equal(t, "Not yours to open", b.Text("h1"))
	assert.NotContains(t, b.Text("main"), "Cancellation policy")
}
