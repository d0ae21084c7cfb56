package testsuite_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// unlabelled lists what the page offers a person without words for a screen reader: a field
// without a label (or aria-label), a table header without a scope, an invalid field not
// described by its error.
func unlabelled(t *testing.T, b *testsuite.Browser) []string {
	t.Helper()
	out, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`(() => {
		const bad = [];
		for (const f of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
			if (!(f.labels && f.labels.length) && !f.getAttribute('aria-label')) bad.push('no label: ' + (f.id || f.name));
		}
		for (const th of document.querySelectorAll('th')) if (!th.hasAttribute('scope')) bad.push('no scope: ' + th.textContent);
		for (const f of document.querySelectorAll('[aria-invalid=true]')) {
			const by = document.getElementById(f.getAttribute('aria-describedby') || '');
			if (!by || !by.textContent.trim()) bad.push('not described: ' + (f.id || f.name));
		}
		return bad;
	})()`))
	require.NoError(t, err)
	return out
}

// TestConsoleAdminEditsRatePlansAndRestrictions: from the hotel's admin page an admin opens its
// rate plans; a percent of "abc" comes back beside the percent field in words, the form as typed
// and nothing written; corrected, the derived plan is listed. On the restriction grid the admin
// closes 3 dates to arrival for 2 room types in one submit, for every plan: the grid shows it, a
// hold arriving on such a date is refused and search offers both plans as not sellable. A bad
// minimum stay, in Simplified Chinese, is refused beside its field. A front desk opens neither page.
func TestConsoleAdminEditsRatePlansAndRestrictions(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	hotel, first := "h-grid", stayFromNow(10, 6)
	openRooms(t, s, hotel, "double", first, 3)
	openRooms(t, s, hotel, "twin", first, 3)
	day := func(n int) string { return first.CheckIn.AddDays(n).String() }
	b := testsuite.NewBrowser(t, "rates")
	b.DevSignIn(s, "admin-1", "admin", "")

	b.Visit(s.ConsoleURL() + "/admin/hotels/" + hotel)
	b.Submit("#rate-plans-link")
	require.Contains(t, b.Location(), "/console/admin/hotels/h-grid/rate-plans")
	assert.Contains(t, b.Text("#plan-BAR"), "Every channel")
	b.Screenshot("plans")
	set(b, "plan-code", "NR", "plan-name", "Non-refundable", "plan-parent", "BAR", "plan-percent", "abc",
		"plan-channels", "*")
	b.Do(chromedp.Click(chromedp.ID("plan-nonrefundable")))
	b.Submit("#save-plan")
	b.Screenshot("plan-refused")
	assert.Equal(t, "Type a percent such as -10 or 7.5, with at most two decimals.", b.Text("#err-percent"))
	assert.Equal(t, "err-percent", b.Attr("#plan-percent", "aria-describedby"), "the error is beside its field")
	assert.Equal(t, "abc", b.Attr("#plan-percent", "value"), "the form is kept as typed")
	assert.Equal(t, "NR", b.Attr("#plan-code", "value"))
	assert.Equal(t, "Non-refundable", b.Attr("#plan-name", "value"))
	assert.Equal(t, "", b.Attr("#plan-nonrefundable", "checked"))
	assert.NotContains(t, b.Text("main"), "invalid request", "no API text")
	assert.Empty(t, unlabelled(t, b))
	assert.Equal(t, 0, count(t, s, `SELECT count(*) FROM rate_plans WHERE hotel_id = $1 AND code = 'NR'`, hotel))

	set(b, "plan-percent", "-10")
	b.Submit("#save-plan")
	assert.Contains(t, b.Text(".flash"), "Rate plan NR (Non-refundable) saved.")
	assert.Contains(t, b.Text("#plan-NR .derivation"), "From BAR, -10%")
	assert.Contains(t, b.Text("#plan-NR"), "Non-refundable")
	b.Screenshot("plan-saved")
	b.Submit("#edit-NR")
	assert.Equal(t, "NR", b.Text("#plan-code-fixed"), "an existing plan's code is fixed")
	assert.Equal(t, "-10", b.Attr("#plan-percent", "value"), "the form holds the plan as stored")
	assert.Equal(t, "", b.Attr(`#plan-parent option[value="BAR"]`, "selected"), "derived from BAR")
	res := s.Admin(t, http.MethodGet, "/api/v1/admin/hotels/"+hotel+"/rate-plans/NR", nil)
	require.Equal(t, http.StatusOK, res.Status, res.Raw)
	assert.Equal(t, "BAR", res.Body["derivedFrom"].(map[string]any)["parent"], res.Raw)
	assert.Equal(t, "-10", res.Body["derivedFrom"].(map[string]any)["percent"])
	assert.Equal(t, []any{"*"}, res.Body["channels"])

	b.Visit(s.ConsoleURL() + "/admin/hotels/" + hotel)
	b.Submit("#restrictions-link")
	b.Visit(s.ConsoleURL() + "/admin/hotels/" + hotel + "/restrictions?from=" + day(0))
	set(b, "r-from", day(1), "r-to", day(4), "r-kind", "closedToArrival", "r-plan", "")
	b.Do(chromedp.Click(chromedp.ID("r-room-double")), chromedp.Click(chromedp.ID("r-room-twin")))
	b.Submit("#apply-restriction")
	b.Screenshot("grid-closed-to-arrival")
	assert.Contains(t, b.Text(".flash"), "Closed to arrival set for double, twin (every plan) from "+day(1)+" until "+day(4)+
		": 2 rules written")
	for _, room := range []string{"double", "twin"} {
		assert.Empty(t, b.Attr("#cell-"+room+"-BAR-"+day(0), "data-marks"), room)
		for n := 1; n <= 3; n++ {
			assert.Equal(t, "closedToArrival", b.Attr("#cell-"+room+"-BAR-"+day(n), "data-marks"), "%s %s", room, day(n))
		}
		assert.Empty(t, b.Attr("#cell-"+room+"-BAR-"+day(4), "data-marks"), room)
	}
	assert.Equal(t, "No arrival", b.Text("#cell-twin-BAR-"+day(2)))
	assert.Empty(t, unlabelled(t, b))
	// The grid of every plan's rules shows the rule there too, and the next window moves on.
	b.Do(chromedp.SetValue(chromedp.ID("view-plan"), "*"))
	b.Submit("#show-grid")
	assert.Equal(t, "closedToArrival", b.Attr("#cell-double-all-"+day(2), "data-marks"))
	b.Submit("#grid-next")
	assert.Contains(t, b.Location(), "from="+first.CheckIn.AddDays(14).String())

	stay := domain.Stay{CheckIn: first.CheckIn.AddDays(2), CheckOut: first.CheckIn.AddDays(4)}
	res = hold(t, s, "grid-1", holdBody(s.Customer("guest"), hotel, "twin", stay, 1))
	assert.NotEqual(t, http.StatusCreated, res.Status, "a hold arriving on a date closed to arrival: %s", res.Raw)
	assert.Contains(t, res.Raw, "closed to arrival on "+stay.CheckIn.String())
	guest := s.Guest(t, "searcher")
	require.Eventually(t, func() bool {
		offers := searchOffers(t, guest, hotel, "double", stay)
		return offers["BAR"]["sellable"] == false && offers["NR"]["sellable"] == false
	}, 10*time.Second, 50*time.Millisecond, "search offers neither plan on a date closed to arrival")
	offers := searchOffers(t, guest, hotel, "double", domain.Stay{CheckIn: first.CheckIn, CheckOut: first.CheckIn.AddDays(2)})
	assert.Equal(t, true, offers["NR"]["sellable"], "arriving the day before: %v", offers["NR"])

	b.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	b.Submit(`form[action="/console/language"] button`)
	set(b, "r-from", day(1), "r-to", day(3), "r-kind", "minStay", "r-value", "two")
	b.Do(chromedp.Click(chromedp.ID("r-room-double")))
	b.Submit("#apply-restriction")
	b.Screenshot("grid-refused-zh")
	assert.Equal(t, "请填写整数晚数或天数。", b.Text("#err-value"))
	assert.Equal(t, "two", b.Attr("#r-value", "value"))
	assert.Equal(t, "", b.Attr("#r-room-double", "checked"), "the room type ticked stays ticked")

	desk := newConsoleClient(t, s)
	token := desk.devSignIn("desk-1", "front_desk", "hotel:"+hotel)
	for _, path := range []string{"/rate-plans", "/restrictions"} {
		got, _ := desk.do(http.MethodGet, "/console/admin/hotels/"+hotel+path, nil, nil)
		assert.Equal(t, http.StatusForbidden, got.StatusCode, path)
	}
	got, _ := desk.do(http.MethodPost, "/console/admin/hotels/"+hotel+"/restrictions", url.Values{"csrf": {token},
		"from": {day(0)}, "to": {day(1)}, "roomTypes": {"double"}, "kind": {"closed"}, "action": {"apply"}}, nil)
	assert.Equal(t, http.StatusForbidden, got.StatusCode)
	assert.Equal(t, 2, count(t, s, `SELECT count(*) FROM sale_rules WHERE hotel_id = $1`, hotel), "the desk wrote nothing")
}
