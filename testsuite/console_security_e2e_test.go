package testsuite_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

// closedUnits counts the system's closed units.
func closedUnits(t *testing.T, sys *testsuite.System) int {
	t.Helper()
	var n int
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM inventory WHERE closed_at IS NOT NULL`).Scan(&n))
	return n
}

func sessionCount(t *testing.T, sys *testsuite.System) int {
	t.Helper()
	var n int
	require.NoError(t, sys.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM sessions`).Scan(&n))
	return n
}

// TestConsoleRefusesFormsWithoutTheirCSRFToken: a signed-in front desk's browser made to post by
// another page (no token, a wrong one, or the right one from another site) gets 403 and nothing
// is written: not the session (its stored row is byte for byte the same), not a closure. The same
// form with its token does change the session, so the comparison can see a write.
func TestConsoleRefusesFormsWithoutTheirCSRFToken(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day := domain.DateOf(time.Now(), time.UTC).AddDays(1)
	openVenue(t, sys, "venue-alpha", day, 24)
	desk := newConsoleClient(t, sys)
	token := desk.devSignIn("desk-a", "front_desk", "venue:venue-alpha")
	signedIn := desk.Token
	before, ok := sessionRow(t, sys, signedIn)
	require.True(t, ok)

	forged := []struct {
		name    string
		csrf    string
		headers map[string]string
	}{
		{"no token", "", nil},
		{"a wrong token", "not-the-token", nil},
		{"a wrong htmx header", "", map[string]string{"X-CSRF-Token": "not-the-token", "HX-Request": "true"}},
		{"the token, posted from another site", token, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"the token, from another origin", token, map[string]string{"Origin": "https://evil.example"}},
	}
	posts := []struct {
		path string
		form url.Values
	}{
		{"/console/language", url.Values{"lang": {"zh-Hans"}, "next": {"/console/"}}},
		{"/console/sign-out", url.Values{}},
		{"/console/venues/venue-alpha/closures", url.Values{"resourceId": {"court-1"}, "date": {day.String()},
			"reason": {"forged"}}},
	}
	for _, f := range forged {
		for _, p := range posts {
			form := url.Values{}
			for k, v := range p.form {
				form[k] = v
			}
			if f.csrf != "" {
				form.Set("csrf", f.csrf)
			}
			res, page := desk.do(http.MethodPost, p.path, form, f.headers)
			assert.Equal(t, http.StatusForbidden, res.StatusCode, "%s to %s: %s", f.name, p.path, page)
			assert.Contains(t, page, "nothing was changed", "%s to %s", f.name, p.path)
			assert.Equal(t, signedIn, desk.Token, "%s to %s: the session stays the same", f.name, p.path)
		}
	}
	// Nor does a forged form from a browser with no session start one.
	stranger := newConsoleClient(t, sys)
	sessions := sessionCount(t, sys)
	res, page := stranger.do(http.MethodPost, "/console/language", url.Values{"lang": {"zh-Hans"}}, nil)
	assert.Equal(t, http.StatusForbidden, res.StatusCode, page)
	assert.Empty(t, stranger.Token)
	assert.Equal(t, sessions, sessionCount(t, sys))

	after, ok := sessionRow(t, sys, desk.Token)
	require.True(t, ok, "the forged sign-outs left the session in place")
	assert.Equal(t, before, after, "no forged form changed the session")
	assert.Zero(t, closedUnits(t, sys), "no forged form closed a unit")
	res, page = desk.do(http.MethodGet, "/console/", nil, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, page, `<html lang="en">`, "the language is the one before the forged forms")

	// The control: the same form with its token, from the console's own page, is taken.
	res, page = desk.do(http.MethodPost, "/console/language", url.Values{"csrf": {token}, "lang": {"zh-Hans"},
		"next": {"/console/"}}, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": sys.URL})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, page)
	changed, _ := sessionRow(t, sys, desk.Token)
	assert.NotEqual(t, before, changed, "a form with its token does write the session")
	_, page = desk.do(http.MethodGet, "/console/", nil, nil)
	assert.Contains(t, page, `<html lang="zh-Hans">`)
	res, page = desk.do(http.MethodPost, "/console/venues/venue-alpha/closures", url.Values{"csrf": {token},
		"resourceId": {"court-1"}, "date": {day.String()}, "reason": {"the desk's own"}}, nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, page)
	assert.Positive(t, closedUnits(t, sys), "a closure with its token does close units")
}

// TestConsoleSessionEndsAtSignOut: a copy of the cookie taken before signing out opens nothing
// after: the session's row is deleted, and the copy is sent to sign in.
func TestConsoleSessionEndsAtSignOut(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	desk := newConsoleClient(t, sys)
	token := desk.devSignIn("desk-1", "front_desk", "hotel:grand-budapest")
	copied := desk.Token
	_, ok := sessionRow(t, sys, copied)
	require.True(t, ok, "a signed-in session is stored")

	res, page := desk.do(http.MethodPost, "/console/sign-out", url.Values{"csrf": {token}}, nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, page)
	assert.Equal(t, "/console/sign-in?signedOut=1", res.Header.Get("Location"))
	assert.Empty(t, desk.Token, "the browser is told to drop the cookie")
	assert.Negative(t, desk.Cookie.MaxAge)
	_, ok = sessionRow(t, sys, copied)
	assert.False(t, ok, "signing out deleted the session's row")

	replay := newConsoleClient(t, sys)
	replay.Token = copied
	for _, path := range []string{"/console/", "/console/hotels/grand-budapest/day"} {
		res, page = replay.do(http.MethodGet, path, nil, nil)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, "%s with the copied cookie: %s", path, page)
		assert.Equal(t, "/console/sign-in?next="+url.QueryEscape(path), res.Header.Get("Location"))
	}
	// An htmx request (a fragment of a page) is not redirected in place, which would swap the
	// sign-in page into the fragment: htmx is told to send the browser to sign in, and back.
	replay.Token = copied
	res, page = replay.do(http.MethodGet, "/console/hotels/grand-budapest/day", nil, map[string]string{
		"HX-Request": "true", "HX-Current-URL": sys.ConsoleURL() + "/hotels/grand-budapest/day?date=2026-12-01"})
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode, page)
	assert.Equal(t, "/console/sign-in?next="+url.QueryEscape("/console/hotels/grand-budapest/day?date=2026-12-01"),
		res.Header.Get("HX-Redirect"))
	assert.Empty(t, page)
	res, _ = replay.do(http.MethodGet, "/console/", nil, map[string]string{"HX-Request": "true",
		"HX-Current-URL": "https://evil.example/console/x"})
	assert.Equal(t, "/console/sign-in?next=%2Fconsole%2Fx", res.Header.Get("HX-Redirect"), "only the page's path is kept")
	res, _ = replay.do(http.MethodGet, "/console/", nil, map[string]string{"HX-Request": "true",
		"HX-Current-URL": sys.URL + "/api/v1/admin/venues"})
	assert.Equal(t, "/console/sign-in?next=%2Fconsole%2F", res.Header.Get("HX-Redirect"))

	replay.Token = copied
	res, _ = replay.do(http.MethodPost, "/console/sign-out", url.Values{"csrf": {token}}, nil)
	assert.Equal(t, http.StatusForbidden, res.StatusCode, "the old session's CSRF token went with it")
	_, ok = sessionRow(t, sys, copied)
	assert.False(t, ok, "no request with the copied cookie brought its row back")
}

// TestConsoleDevSignInRenewsTheSessionToken: the session a sign-in page started (and that an
// attacker could have planted) is not the one signed in: its token changes and its row goes.
func TestConsoleDevSignInRenewsTheSessionToken(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	desk := newConsoleClient(t, sys)
	res, page := desk.do(http.MethodGet, "/console/sign-in", nil, nil)
	require.Equal(t, http.StatusOK, res.StatusCode, page)
	planted, formToken := desk.Token, csrf(t, page)
	require.NotEmpty(t, planted, "the sign-in page starts a session for its form's token")

	res, page = desk.do(http.MethodPost, "/console/sign-in/dev", url.Values{"csrf": {formToken},
		"subject": {"desk-1"}, "role": {"front_desk"}, "site": {"hotel:grand-budapest"}}, nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, page)
	assert.NotEmpty(t, desk.Token)
	assert.NotEqual(t, planted, desk.Token, "signing in renews the session token")
	_, ok := sessionRow(t, sys, planted)
	assert.False(t, ok, "the planted session's row is gone")
	_, ok = sessionRow(t, sys, desk.Token)
	assert.True(t, ok)

	attacker := newConsoleClient(t, sys)
	attacker.Token = planted
	res, _ = attacker.do(http.MethodGet, "/console/", nil, nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "the planted token is not signed in")
	_, page = desk.do(http.MethodGet, "/console/", nil, nil)
	assert.NotContains(t, page, formToken, "signing in renews the CSRF token too")
}

// TestConsoleGridReloadAfterTheSessionEndsGoesToSignIn: when the session ends under an open
// page (idle, lifetime, signed out elsewhere), htmx's reload of the venue's grid sends the whole
// browser to sign in, and back to that day afterwards, instead of swapping the sign-in page into
// the grid.
func TestConsoleGridReloadAfterTheSessionEndsGoesToSignIn(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day := domain.DateOf(time.Now(), time.UTC)
	openVenue(t, sys, "venue-alpha", day, 24)
	b := testsuite.NewBrowser(t, "grid-expired")
	b.DevSignIn(sys, "desk-a", "front_desk", "venue:venue-alpha")
	dayPage := "/console/venues/venue-alpha/day?date=" + day.String()
	b.Visit(sys.URL + dayPage)
	b.Screenshot("venue-day")
	require.Contains(t, b.Text("#grid"), "court-1")

	_, err := sys.DB.Pool.Exec(context.Background(), `DELETE FROM sessions`) // as its expiry would
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	_, err = chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Evaluate[bool](
		`(htmx.ajax('GET', document.getElementById('grid').getAttribute('hx-get'),
			{source: '#grid', target: '#grid', select: '#grid', swap: 'outerHTML'}), true)`)))
	require.NoError(t, err, "the grid's reload navigates")
	b.Screenshot("sign-in")
	assert.Equal(t, sys.ConsoleURL()+"/sign-in?next="+url.QueryEscape(dayPage), b.Location())
	b.Do(chromedp.SetValue(chromedp.ID("subject"), "desk-a"), chromedp.SetValue(chromedp.ID("role"), "front_desk"),
		chromedp.SetValue(chromedp.ID("site"), "venue:venue-alpha"))
	b.Submit("#dev-sign-in")
	assert.Equal(t, sys.URL+dayPage, b.Location(), "back on the day the desk had open")
}

// TestConsoleSessionsEndWhenIdleAndAtTheirLifetime: a session ends after its idle time without a
// request, however young, and at its lifetime, however busy; then the desk is sent to sign in.
func TestConsoleSessionsEndWhenIdleAndAtTheirLifetime(t *testing.T) {
	t.Parallel()
	const unit = 1500 * time.Millisecond
	signedIn := func(c *consoleClient) bool {
		t.Helper()
		res, page := c.do(http.MethodGet, "/console/", nil, nil)
		require.Contains(t, []int{http.StatusOK, http.StatusSeeOther}, res.StatusCode, page)
		return res.StatusCode == http.StatusOK
	}

	idle := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true, ConsoleSessionIdle: unit})
	desk := newConsoleClient(t, idle)
	desk.devSignIn("desk-1", "finance", "")
	for range 3 { // requests within the idle time keep it going past it
		time.Sleep(unit / 2)
		require.True(t, signedIn(desk), "a request within the idle time")
	}
	time.Sleep(unit + unit/2)
	assert.False(t, signedIn(desk), "idle for longer than the idle time")

	busy := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true, ConsoleSessionLifetime: 2 * unit})
	desk = newConsoleClient(t, busy)
	desk.devSignIn("desk-1", "finance", "")
	start := time.Now()
	for time.Since(start) < 2*unit-unit/4 {
		require.True(t, signedIn(desk), "within the lifetime, at %s", time.Since(start))
		time.Sleep(unit / 4)
	}
	time.Sleep(unit / 2)
	assert.False(t, signedIn(desk), "past the lifetime, however busy")
}

// TestConsolePagesRefuseFramingAndCaching: every console answer, the sign-in page's, a refused
// form's and a signed-in page's alike, keeps out of frames, caches and other sites' scripts.
func TestConsolePagesRefuseFramingAndCaching(t *testing.T) {
	t.Parallel()
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	c := newConsoleClient(t, sys)
	check := func(res *http.Response, what string) {
		t.Helper()
		h := res.Header
		assert.Contains(t, h.Get("Content-Security-Policy"), "default-src 'self'", what)
		assert.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors 'none'", what)
		assert.Equal(t, "DENY", h.Get("X-Frame-Options"), what)
		assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), what)
		assert.Contains(t, h.Values("Cache-Control"), "no-store", what)
	}
	res, _ := c.do(http.MethodGet, "/console/sign-in", nil, nil)
	check(res, "the sign-in page")
	res, _ = c.do(http.MethodPost, "/console/sign-out", url.Values{}, nil)
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	check(res, "a refused form")
	c.devSignIn("fin-1", "finance", "")
	res, _ = c.do(http.MethodGet, "/console/", nil, nil)
	check(res, "a signed-in page")
}
