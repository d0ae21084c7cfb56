package console_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/console"
	"github.com/bookflow/bookflow/testsuite"
)

// fakeIdP is an OpenID Connect provider of one RS256 key that hands out, for any code, an ID
// token for a front desk of venue hall carrying the nonce it was told and expiring after ttl.
type fakeIdP struct {
	srv   *httptest.Server
	key   *rsa.PrivateKey
	ttl   time.Duration
	mu    sync.Mutex
	nonce string
}

func newFakeIdP(t *testing.T, ttl time.Duration) *fakeIdP {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	f := &fakeIdP{key: key, ttl: ttl}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": f.srv.URL, "authorization_endpoint": f.srv.URL + "/authorize",
			"token_endpoint": f.srv.URL + "/token", "jwks_uri": f.srv.URL + "/jwks",
			"id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "alg": "RS256",
			"use": "sig", "n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		nonce := f.nonce
		f.mu.Unlock()
		now := time.Now()
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": f.srv.URL, "aud": "console", "sub": "desk-oidc",
			"iat": now.Unix(), "exp": now.Add(f.ttl).Unix(), "nonce": nonce, "roles": []string{"front_desk"},
			"venues": []string{"hall"}})
		tok.Header["kid"] = "k1"
		signed, err := tok.SignedString(key)
		require.NoError(t, err)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "opaque", "token_type": "Bearer", "expires_in": int(f.ttl.Seconds()),
			"id_token": signed})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// TestTheConsoleActsNoLongerThanTheSignInsToken: the console signs a person in with the ID
// token's claims (roles, sites) and keeps them in the session for its own lifetime (12 h, 2 h
// idle), whatever the token's expiry: a front desk whose token (and so its API access) ran out
// an hour ago, or whose roles or sites the provider took away since, still reads and acts
// through the console as the token said. The session should end (or the person sign in
// again) when the token it was made from expires.
func TestTheConsoleActsNoLongerThanTheSignInsToken(t *testing.T) {
	t.Parallel()
	idp := newFakeIdP(t, 2*time.Second)
	d := testsuite.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := echo.New()
	_, err := console.Mount(ctx, e, console.Config{API: &fakeAPI{keys: map[string][]string{}}, Pool: d.Pool, InsecureCookie: true,
		Logger: quietLog(), OIDC: &console.OIDCConfig{Issuer: idp.srv.URL, ClientID: "console",
			RedirectURL: "http://console.test/console/oidc/callback"}})
	require.NoError(t, err)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	res, err := client.Get(srv.URL + "/console/oidc/start")
	require.NoError(t, err)
	_ = res.Body.Close()
	require.Equal(t, http.StatusFound, res.StatusCode)
	auth, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	idp.mu.Lock()
	idp.nonce = auth.Query().Get("nonce")
	idp.mu.Unlock()
	res, err = client.Get(srv.URL + "/console/oidc/callback?code=c1&state=" + url.QueryEscape(auth.Query().Get("state")))
	require.NoError(t, err)
	_ = res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "signed in")

	home := func() int {
		res, err := client.Get(srv.URL + "/console/")
		require.NoError(t, err)
		_ = res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, http.StatusOK, home(), "the control: the desk is in while its token lasts")
	time.Sleep(3 * time.Second) // the ID token has expired
	assert.Equal(t, http.StatusSeeOther, home(), "past its token's expiry the desk is sent to sign in again, not let in")
}

// swappingIdP signs a front desk "desk-oidc" of venue hall in with a short ID token and a refresh
// token; the refresh grant answers with a valid ID token (same issuer, audience, key) of another
// subject, "someone-else", an admin: a provider's mix-up, or a refresh token that was not this
// session's.
type swappingIdP struct {
	srv   *httptest.Server
	key   *rsa.PrivateKey
	mu    sync.Mutex
	nonce string
}

func newSwappingIdP(t *testing.T, ttl time.Duration) *swappingIdP {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	f := &swappingIdP{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": f.srv.URL, "authorization_endpoint": f.srv.URL + "/authorize",
			"token_endpoint": f.srv.URL + "/token", "jwks_uri": f.srv.URL + "/jwks",
			"id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "alg": "RS256",
			"use": "sig", "n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		nonce := f.nonce
		f.mu.Unlock()
		now := time.Now()
		claims := jwt.MapClaims{"iss": f.srv.URL, "aud": "console", "sub": "desk-oidc", "iat": now.Unix(),
			"exp": now.Add(ttl).Unix(), "nonce": nonce, "roles": []string{"front_desk"}, "venues": []string{"hall"}}
		if r.PostForm.Get("grant_type") == "refresh_token" {
			claims = jwt.MapClaims{"iss": f.srv.URL, "aud": "console", "sub": "someone-else", "iat": now.Unix(),
				"exp": now.Add(time.Hour).Unix(), "roles": []string{"admin"}}
		}
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
		tok.Header["kid"] = "k1"
		signed, err := tok.SignedString(key)
		require.NoError(t, err)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "opaque", "token_type": "Bearer",
			"expires_in": int(ttl.Seconds()), "id_token": signed, "refresh_token": "rt-1"})
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// TestRefreshKeepsTheSessionsSubject: when the ID token has expired the console refreshes
// it and takes whoever the new ID token names as the session's person (oidc.go refresh, session.go
// current), never comparing its subject with the session's. OpenID Connect Core 12.2 requires
// the refreshed ID token's iss and sub to be the original's; here a front desk's session goes on
// as an admin of another name.
func TestRefreshKeepsTheSessionsSubject(t *testing.T) {
	t.Parallel()
	idp := newSwappingIdP(t, 2*time.Second)
	d := testsuite.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := echo.New()
	_, err := console.Mount(ctx, e, console.Config{API: &fakeAPI{keys: map[string][]string{}}, Pool: d.Pool, InsecureCookie: true,
		Logger: quietLog(), OIDC: &console.OIDCConfig{Issuer: idp.srv.URL, ClientID: "console",
			RedirectURL: "http://console.test/console/oidc/callback"}})
	require.NoError(t, err)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	res, err := client.Get(srv.URL + "/console/oidc/start")
	require.NoError(t, err)
	_ = res.Body.Close()
	auth, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	idp.mu.Lock()
	idp.nonce = auth.Query().Get("nonce")
	idp.mu.Unlock()
	res, err = client.Get(srv.URL + "/console/oidc/callback?code=c1&state=" + url.QueryEscape(auth.Query().Get("state")))
	require.NoError(t, err)
	_ = res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "signed in")

	home := func() (int, string) {
		res, err := client.Get(srv.URL + "/console/")
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	status, page := home()
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, page, "desk-oidc", "the control: signed in as the desk")
	time.Sleep(3 * time.Second) // the ID token has expired: the next page refreshes it
	_, page = home()
	assert.NotContains(t, page, "someone-else", "the session of desk-oidc went on as another subject the refresh named")
}

// TestConcurrentRefreshKeepsTheSession: the provider rotates refresh tokens (each is good
// once, as testsuite.OIDCProvider's are and as providers commonly do). When the ID token has
// expired, two pages the person loads at once (two tabs, a page and its htmx request) each
// refresh with the session's one refresh token: the first gets a new token, the second is refused
// and current destroys the session, signing the person out although their sign-in goes on
// (the token endpoint takes 300 ms here, as over a network; with an instant provider the
// pages rarely overlap).
func TestConcurrentRefreshKeepsTheSession(t *testing.T) {
	t.Parallel()
	idp := testsuite.StartOIDCProvider(t, "console", "")
	idp.TokenTTL, idp.Refresh = 2*time.Second, true
	idp.SignInAs(testsuite.OIDCUser{Subject: "desk-oidc", Roles: []string{"front_desk"}, Venues: []string{"hall"}})
	d := testsuite.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := echo.New()
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	cfg := idp.ConsoleConfig()
	cfg.RedirectURL = srv.URL + "/console/oidc/callback"
	// The provider's token endpoint takes a moment, as a real one over the network does.
	cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second, Transport: slowTokens{http.DefaultTransport}}
	idp.AllowRedirect(cfg.RedirectURL)
	_, err := console.Mount(ctx, e, console.Config{API: &fakeAPI{keys: map[string][]string{}}, Pool: d.Pool, InsecureCookie: true,
		Logger: quietLog(), OIDC: cfg})
	require.NoError(t, err)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) *http.Response {
		res, err := client.Get(u)
		require.NoError(t, err)
		_ = res.Body.Close()
		return res
	}
	res := get(srv.URL + "/console/oidc/start")
	require.Equal(t, http.StatusFound, res.StatusCode)
	res = get(res.Header.Get("Location")) // the provider signs desk-oidc in at once
	require.Equal(t, http.StatusFound, res.StatusCode)
	res = get(res.Header.Get("Location"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "signed in")
	require.Equal(t, http.StatusOK, get(srv.URL+"/console/").StatusCode, "the control: in while the token lasts")

	time.Sleep(3 * time.Second) // the ID token has expired
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := client.Get(srv.URL + "/console/")
			if err == nil {
				_ = r.Body.Close()
				statuses[i] = r.StatusCode
			}
		}()
	}
	wg.Wait()
	after := get(srv.URL + "/console/").StatusCode
	assert.Equal(t, []int{http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK}, statuses, "two pages at once after the token expired: one was sent to sign in")
	assert.Equal(t, http.StatusOK, after, "and the session is gone: provider refusals %v", idp.Refusals())
	t.Logf("statuses %v, after %d, refusals %v, issued %d", statuses, after, idp.Refusals(), idp.Issued())
}

// slowTokens delays the provider's token answers by 300 ms.
type slowTokens struct{ next http.RoundTripper }

func (s slowTokens) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/token") {
		time.Sleep(300 * time.Millisecond)
	}
	return s.next.RoundTrip(r)
}

// faithfulIdP is a correct provider: each authorization signs in the subject next names (with
// its roles), handing out a refresh token only when refreshFor[subject] says so; a refresh
// token gives a new ID token of the subject it was issued to.
type faithfulIdP struct {
	srv        *httptest.Server
	mu         sync.Mutex
	nonce      string
	next       string
	roles      map[string][]string
	refreshFor map[string]bool
	issuedTo   map[string]string // refresh token → subject
}

func newFaithfulIdP(t *testing.T, ttl time.Duration) *faithfulIdP {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	f := &faithfulIdP{roles: map[string][]string{}, refreshFor: map[string]bool{}, issuedTo: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": f.srv.URL, "authorization_endpoint": f.srv.URL + "/authorize",
			"token_endpoint": f.srv.URL + "/token", "jwks_uri": f.srv.URL + "/jwks",
			"id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "alg": "RS256",
			"use": "sig", "n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		now := time.Now()
		sub, nonce := f.next, f.nonce
		if r.PostForm.Get("grant_type") == "refresh_token" {
			sub, nonce = f.issuedTo[r.PostForm.Get("refresh_token")], ""
		}
		claims := jwt.MapClaims{"iss": f.srv.URL, "aud": "console", "sub": sub, "iat": now.Unix(),
			"exp": now.Add(ttl).Unix(), "roles": f.roles[sub]}
		if nonce != "" {
			claims["nonce"] = nonce
		}
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
		tok.Header["kid"] = "k1"
		signed, err := tok.SignedString(key)
		require.NoError(t, err)
		answer := map[string]any{"access_token": "opaque", "token_type": "Bearer", "expires_in": int(ttl.Seconds()),
			"id_token": signed}
		if f.refreshFor[sub] {
			rt := "rt-" + sub
			f.issuedTo[rt] = sub
			answer["refresh_token"] = rt
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// TestASignInDoesNotKeepAnotherPersonsRefreshToken: admin "alice" signs in on a shared
// desk computer and her provider hands out a refresh token; without signing out, front desk
// "bob" signs in on the same browser and gets no refresh token (his client or policy gives
// none). keep only writes a refresh token when there is one, so alice's stays in bob's session:
// when bob's ID token expires the console refreshes with alice's token and bob's session goes on
// as alice, an admin.
func TestASignInDoesNotKeepAnotherPersonsRefreshToken(t *testing.T) {
	t.Parallel()
	idp := newFaithfulIdP(t, 2*time.Second)
	idp.roles["alice"], idp.roles["bob"] = []string{"admin"}, []string{"finance"}
	idp.refreshFor["alice"] = true
	d := testsuite.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := echo.New()
	_, err := console.Mount(ctx, e, console.Config{API: &fakeAPI{keys: map[string][]string{}}, Pool: d.Pool, InsecureCookie: true,
		Logger: quietLog(), OIDC: &console.OIDCConfig{Issuer: idp.srv.URL, ClientID: "console",
			RedirectURL: "http://console.test/console/oidc/callback"}})
	require.NoError(t, err)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	signIn := func(who string) {
		idp.mu.Lock()
		idp.next = who
		idp.mu.Unlock()
		res, err := client.Get(srv.URL + "/console/oidc/start")
		require.NoError(t, err)
		_ = res.Body.Close()
		auth, err := url.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		idp.mu.Lock()
		idp.nonce = auth.Query().Get("nonce")
		idp.mu.Unlock()
		res, err = client.Get(srv.URL + "/console/oidc/callback?code=c&state=" + url.QueryEscape(auth.Query().Get("state")))
		require.NoError(t, err)
		_ = res.Body.Close()
		require.Equal(t, http.StatusSeeOther, res.StatusCode, "%s signed in", who)
	}
	home := func() string {
		res, err := client.Get(srv.URL + "/console/")
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	signIn("alice")
	require.Contains(t, home(), "Signed in as alice")
	signIn("bob")
	require.Contains(t, home(), "Signed in as bob", "the control: bob is signed in")
	time.Sleep(3 * time.Second) // bob's ID token has expired
	assert.NotContains(t, home(), "Signed in as alice", "bob's session went on as alice with her refresh token")
}
