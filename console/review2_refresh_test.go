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

// TestReview2RefreshKeepsTheSessionsSubject: when the ID token has expired the console refreshes
// it and takes whoever the new ID token names as the session's person (oidc.go refresh, session.go
// current), never comparing its subject with the session's. OpenID Connect Core 12.2 requires
// the refreshed ID token's iss and sub to be the original's; here a front desk's session goes on
// as an admin of another name.
func TestReview2RefreshKeepsTheSessionsSubject(t *testing.T) {
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
