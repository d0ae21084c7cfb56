package console_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
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

// TestReviewTheConsoleActsNoLongerThanTheSignInsToken: the console signs a person in with the ID
// token's claims (roles, sites) and keeps them in the session for its own lifetime (12 h, 2 h
// idle), whatever the token's expiry: a front desk whose token (and so its API access) ran out
// an hour ago, or whose roles or sites the provider took away since, still reads and acts
// through the console as the token said. The session should end (or the person sign in
// again) when the token it was made from expires.
func TestReviewTheConsoleActsNoLongerThanTheSignInsToken(t *testing.T) {
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
