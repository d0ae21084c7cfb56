package testsuite_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

func TestConsoleDevSignInOpensTheSites(t *testing.T) {
	t.Parallel()
	s := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true})
	day := domain.DateOf(time.Now(), time.UTC)
	s.DB.SetInventory(t, "grand-budapest", "double", day, day.AddDays(3), 2)
	b := testsuite.NewBrowser(t, "desk")
	b.DevSignIn(s, "desk-1", "front_desk", "hotel:grand-budapest")
	b.Screenshot("home")
	require.Contains(t, b.Location(), "/console/")
	assert.Contains(t, b.Text("main"), "grand-budapest")
	assert.Contains(t, b.Text("header"), "desk-1")
}

// oidcSystem is a System whose console signs staff in with a provider of the test's own, which
// knows the console as a confidential client with its callback.
func oidcSystem(t *testing.T) (*testsuite.System, *testsuite.OIDCProvider) {
	t.Helper()
	idp := testsuite.StartOIDCProvider(t, "bookflow-console", "console-client-secret")
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true, ConsoleOIDC: idp.ConsoleConfig()})
	idp.AllowRedirect(sys.ConsoleURL() + "/oidc/callback")
	return sys, idp
}

// sessionCookie is the browser's console cookie, nil when it has none.
func sessionCookie(t *testing.T, b *testsuite.Browser, sys *testsuite.System) *network.Cookie {
	t.Helper()
	res, err := chromedp.Call(b.Ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{sys.ConsoleURL() + "/"}})
	require.NoError(t, err)
	for _, c := range res.Cookies {
		if c.Name == consoleCookie {
			return c
		}
	}
	return nil
}

// TestConsoleOIDCSignInMapsClaimsToRolesAndSites: a front desk of one venue signs in with the
// identity provider (authorization code, PKCE, a confidential client) and the console opens on
// that venue only, from the ID token's roles and venues claims. The session is a new one, behind
// an HttpOnly, Secure, SameSite=Lax cookie scoped to /console that ends with the browser.
func TestConsoleOIDCSignInMapsClaimsToRolesAndSites(t *testing.T) {
	t.Parallel()
	sys, idp := oidcSystem(t)
	day := domain.DateOf(time.Now(), time.UTC)
	openVenue(t, sys, "venue-alpha", day, 24)
	openVenue(t, sys, "venue-bravo", day, 24)
	idp.SignInAs(testsuite.OIDCUser{Subject: "desk-alpha", Roles: []string{"front_desk"}, Venues: []string{"venue-alpha"}})

	b := testsuite.NewBrowser(t, "oidc-desk")
	b.Visit(sys.ConsoleURL() + "/")
	b.Screenshot("sign-in")
	require.Contains(t, b.Location(), "/console/sign-in?next=%2Fconsole%2F", "nobody signed in is sent to sign in")
	assert.NotContains(t, b.Text("main"), "Development sign-in", "no dev sign-in beside a real provider")
	before := sessionCookie(t, b, sys)

	b.Submit("#oidc-sign-in")
	b.Screenshot("home")
	assert.Equal(t, sys.ConsoleURL()+"/", b.Location(), "back where the person was going")
	assert.Contains(t, b.Text("header"), "desk-alpha")
	main := b.Text("main")
	assert.Contains(t, main, "venue-alpha")
	assert.NotContains(t, main, "venue-bravo", "a front desk sees only the venues its claims name")
	assert.Equal(t, 1, idp.Issued())
	assert.Empty(t, idp.Refusals())
	for _, v := range []struct {
		venue string
		want  int
	}{{"venue-alpha", http.StatusOK}, {"venue-bravo", http.StatusForbidden}} {
		res, err := chromedp.Run(b.Ctx, chromedp.NavigateResponse(sys.ConsoleURL()+"/venues/"+v.venue+"/day"))
		require.NoError(t, err)
		assert.EqualValues(t, v.want, res.Status, v.venue)
		b.Screenshot(v.venue)
	}

	after := sessionCookie(t, b, sys)
	require.NotNil(t, after)
	assert.True(t, after.HTTPOnly, "no script reads the session cookie")
	assert.True(t, after.Secure, "the session cookie travels only to a secure origin")
	assert.Equal(t, network.CookieSameSiteLax, after.SameSite)
	assert.Equal(t, "/console", after.Path)
	assert.True(t, after.Session, "the session cookie ends with the browser")
	// The session before sign-in (the sign-in page's, holding its form's token and then the
	// sign-in's state) is not the one signed in.
	require.NotNil(t, before)
	assert.NotEqual(t, before.Value, after.Value, "signing in renews the session token")
	_, gone := sessionRow(t, sys, before.Value)
	assert.False(t, gone, "the session before sign-in is gone")
	stored, ok := sessionRow(t, sys, after.Value)
	require.True(t, ok)
	var who domain.Principal
	require.NoError(t, json.Unmarshal([]byte(stored["principal"].(string)), &who))
	assert.Equal(t, domain.Principal{Subject: "desk-alpha", Roles: []domain.Role{domain.RoleFrontDesk},
		Venues: []string{"venue-alpha"}}, who, "the claims, as the API's tokens map them")
}

// TestConsoleOIDCRefusesAnAccountWithoutAStaffRole: someone the provider signs in who holds no
// staff role gets the 403 page and no session.
func TestConsoleOIDCRefusesAnAccountWithoutAStaffRole(t *testing.T) {
	t.Parallel()
	sys, idp := oidcSystem(t)
	idp.SignInAs(testsuite.OIDCUser{Subject: "guest-1", Roles: []string{"customer"}})

	b := testsuite.NewBrowser(t, "oidc-customer")
	b.Visit(sys.ConsoleURL() + "/sign-in")
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#oidc-sign-in")))
	require.NoError(t, err)
	b.Screenshot("refused")
	assert.EqualValues(t, http.StatusForbidden, res.Status)
	assert.Contains(t, b.Text("main"), "holds no staff role")
	assert.Equal(t, 1, idp.Issued(), "the provider did sign the person in")

	// The refusal's page is a page like the others: its language switch works.
	b.Do(chromedp.SetValue(chromedp.ID("lang"), "zh-Hans"))
	b.Submit(`form[action="/console/language"] button`)
	b.Screenshot("sign-in-zh")
	assert.Contains(t, b.Location(), "/console/sign-in", "and the console did not sign the person in")
	assert.Contains(t, b.Text("h1"), "登录员工控制台")
}

// TestConsoleOIDCCallbackWithAWrongStateIsRefused: a callback whose state is not the one this
// browser's sign-in started (a code from someone else's sign-in, say) is refused before its code
// is ever exchanged, and it spends the sign-in under way.
func TestConsoleOIDCCallbackWithAWrongStateIsRefused(t *testing.T) {
	t.Parallel()
	sys, idp := oidcSystem(t)
	idp.SignInAs(testsuite.OIDCUser{Subject: "desk-1", Roles: []string{"front_desk"}, Hotels: []string{"grand-budapest"}})
	c := newConsoleClient(t, sys)
	callback := oidcToProvider(t, c, idp, "/console/")
	require.NotEmpty(t, callback.Query().Get("code"))

	forged := callback.Query()
	forged.Set("state", "not-the-state")
	res, page := c.do(http.MethodGet, "/console/oidc/callback?"+forged.Encode(), nil, nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode, page)
	assert.Contains(t, page, "expired or was started elsewhere")
	res, page = c.do(http.MethodGet, callback.RequestURI(), nil, nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode, "the right state after a wrong one: the sign-in is spent: %s", page)
	assert.Zero(t, idp.Issued())
	assert.Empty(t, idp.Refusals(), "the code was never sent to the provider")

	stranger := newConsoleClient(t, sys) // no sign-in under way at all
	res, _ = stranger.do(http.MethodGet, callback.RequestURI(), nil, nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	res, _ = c.do(http.MethodGet, "/console/", nil, nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "nobody is signed in")
}

// oidcToProvider starts a sign-in for next over plain HTTP and goes to the provider, which
// answers with the callback it sends the browser to.
func oidcToProvider(t *testing.T, c *consoleClient, idp *testsuite.OIDCProvider, next string) *url.URL {
	t.Helper()
	res, _ := c.do(http.MethodGet, "/console/oidc/start?next="+url.QueryEscape(next), nil, nil)
	require.Equal(t, http.StatusFound, res.StatusCode)
	authorize := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(authorize, idp.URL+"/authorize?"), authorize)
	q := must(url.Parse(authorize)).Query()
	assert.Equal(t, "S256", q.Get("code_challenge_method"))
	assert.NotEmpty(t, q.Get("code_challenge"))
	assert.NotEmpty(t, q.Get("nonce"))
	assert.NotEmpty(t, q.Get("state"))
	res, _ = c.do(http.MethodGet, authorize, nil, nil)
	require.Equal(t, http.StatusFound, res.StatusCode)
	callback := must(url.Parse(res.Header.Get("Location")))
	require.Equal(t, q.Get("state"), callback.Query().Get("state"))
	return callback
}

// TestConsoleOIDCSignInStaysOnTheConsole: a sign-in started with a next address off the
// console ends on the console's home; one the provider refuses signs nobody in.
func TestConsoleOIDCSignInStaysOnTheConsole(t *testing.T) {
	t.Parallel()
	sys, idp := oidcSystem(t)
	refused := newConsoleClient(t, sys) // nobody set to sign in yet: the provider answers access_denied
	callback := oidcToProvider(t, refused, idp, "/console/")
	assert.Equal(t, "access_denied", callback.Query().Get("error"))
	res, page := refused.do(http.MethodGet, callback.RequestURI(), nil, nil)
	assert.Equal(t, http.StatusForbidden, res.StatusCode, page)
	assert.Contains(t, page, "did not sign you in")
	res, _ = refused.do(http.MethodGet, "/console/", nil, nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)

	idp.SignInAs(testsuite.OIDCUser{Subject: "fin-1", Roles: []string{"finance"}})
	for _, next := range []string{"https://evil.example/console/", "//evil.example/console/", "/\\evil.example",
		"/console/../api/v1/admin/venues"} {
		c := newConsoleClient(t, sys)
		callback := oidcToProvider(t, c, idp, next)
		res, page := c.do(http.MethodGet, callback.RequestURI(), nil, nil)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, page)
		assert.Equal(t, "/console/", res.Header.Get("Location"), "next=%s", next)
		res, page = c.do(http.MethodGet, "/console/", nil, nil)
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Contains(t, page, "fin-1")
	}
	c := newConsoleClient(t, sys)
	res, _ = c.do(http.MethodGet, oidcToProvider(t, c, idp, "/console/finance?x=1").RequestURI(), nil, nil)
	assert.Equal(t, "/console/finance?x=1", res.Header.Get("Location"), "a console page is kept")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestConsoleOIDCSessionLastsAsLongAsItsSignIn: a console session made by the identity
// provider ends with its ID token unless the provider's refresh token gives a new one, and then
// has the roles and sites that one names: a desk moved to another venue loses the first at its
// next refresh, and one the provider no longer signs in is sent to sign in again.
func TestConsoleOIDCSessionLastsAsLongAsItsSignIn(t *testing.T) {
	t.Parallel()
	idp := testsuite.StartOIDCProvider(t, "bookflow-console", "console-client-secret")
	idp.TokenTTL, idp.Refresh = 2*time.Second, true
	sys := testsuite.NewSystem(t, testsuite.SystemOptions{Console: true, ConsoleOIDC: idp.ConsoleConfig()})
	idp.AllowRedirect(sys.ConsoleURL() + "/oidc/callback")
	day := domain.DateOf(time.Now(), time.UTC)
	openVenue(t, sys, "venue-alpha", day, 24)
	openVenue(t, sys, "venue-bravo", day, 24)
	idp.SignInAs(testsuite.OIDCUser{Subject: "desk-alpha", Roles: []string{"front_desk"}, Venues: []string{"venue-alpha"}})
	b := testsuite.NewBrowser(t, "oidc-refresh")
	b.Visit(sys.ConsoleURL() + "/sign-in")
	b.Submit("#oidc-sign-in")
	status := func(venue string) int {
		res, err := chromedp.Run(b.Ctx, chromedp.NavigateResponse(sys.ConsoleURL()+"/venues/"+venue+"/day"))
		require.NoError(t, err)
		return int(res.Status)
	}
	require.Equal(t, http.StatusOK, status("venue-alpha"))

	time.Sleep(3 * time.Second) // the ID token has expired: the refresh token gets another
	assert.Equal(t, http.StatusOK, status("venue-alpha"))
	assert.Equal(t, 2, idp.Issued())

	idp.SignInAs(testsuite.OIDCUser{Subject: "desk-alpha", Roles: []string{"front_desk"}, Venues: []string{"venue-bravo"}})
	time.Sleep(3 * time.Second)
	assert.Equal(t, http.StatusForbidden, status("venue-alpha"), "moved to another venue at the provider")
	assert.Equal(t, http.StatusOK, status("venue-bravo"))

	idp.SignInAs(testsuite.OIDCUser{Subject: "someone-else", Roles: []string{"front_desk"}, Venues: []string{"venue-bravo"}})
	time.Sleep(3 * time.Second)
	b.Visit(sys.ConsoleURL() + "/venues/venue-bravo/day")
	assert.Contains(t, b.Location(), "/console/sign-in", "the provider no longer vouches for desk-alpha")
}
