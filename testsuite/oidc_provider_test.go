package testsuite_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite"
)

// TestOIDCProviderHoldsTheCodeExchangeToPKCE: the test provider refuses what a real one refuses
// (a missing or wrong PKCE verifier, a wrong client secret, another redirect URI, a code used
// twice, an unregistered redirect URI), so the console's sign-in passing against it means the
// console does them right; and its ID token verifies with its own discovery and keys.
func TestOIDCProviderHoldsTheCodeExchangeToPKCE(t *testing.T) {
	t.Parallel()
	const callback = "http://127.0.0.1:1/console/oidc/callback"
	idp := testsuite.StartOIDCProvider(t, "bookflow-console", "s3cret")
	idp.AllowRedirect(callback)
	idp.SignInAs(testsuite.OIDCUser{Subject: "desk-1", Roles: []string{"front_desk"}, Venues: []string{"venue-alpha"}})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	verifier := "a-verifier-of-the-console-that-is-long-enough-0123456789"
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	authorize := func(redirect string, pkce bool) *url.URL {
		t.Helper()
		q := url.Values{"response_type": {"code"}, "client_id": {"bookflow-console"}, "redirect_uri": {redirect},
			"scope": {"openid profile"}, "state": {"st"}, "nonce": {"n-1"}}
		if pkce {
			q.Set("code_challenge", challenge)
			q.Set("code_challenge_method", "S256")
		}
		res, err := noRedirect.Get(idp.URL + "/authorize?" + q.Encode())
		require.NoError(t, err)
		res.Body.Close()
		if res.StatusCode != http.StatusFound {
			return nil
		}
		back, err := url.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		return back
	}
	code := func() string {
		t.Helper()
		back := authorize(callback, true)
		require.NotNil(t, back)
		require.Equal(t, "st", back.Query().Get("state"))
		require.NotEmpty(t, back.Query().Get("code"), back.String())
		return back.Query().Get("code")
	}
	exchange := func(code, verifier, secret, redirect string) (int, map[string]any) {
		t.Helper()
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}}
		if verifier != "" {
			form.Set("code_verifier", verifier)
		}
		req, err := http.NewRequest(http.MethodPost, idp.URL+"/token", strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("bookflow-console", secret)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var body map[string]any
		require.NoError(t, json.Unmarshal(raw, &body), string(raw))
		return res.StatusCode, body
	}

	assert.Nil(t, authorize("https://evil.example/callback", true), "an unregistered redirect URI gets no code")
	back := authorize(callback, false)
	require.NotNil(t, back)
	assert.Equal(t, "invalid_request", back.Query().Get("error"), "no PKCE challenge, no code")
	assert.Empty(t, back.Query().Get("code"))

	for _, c := range []struct {
		why                      string
		verifier, secret, target string
		status                   int
		error                    string
	}{
		{"no code_verifier", "", "s3cret", callback, http.StatusBadRequest, "invalid_grant"},
		{"a wrong code_verifier", verifier + "x", "s3cret", callback, http.StatusBadRequest, "invalid_grant"},
		{"the challenge itself as the verifier", challenge, "s3cret", callback, http.StatusBadRequest, "invalid_grant"},
		{"another redirect_uri", verifier, "s3cret", callback + "x", http.StatusBadRequest, "invalid_grant"},
		{"a wrong client secret", verifier, "guess", callback, http.StatusUnauthorized, "invalid_client"},
	} {
		status, body := exchange(code(), c.verifier, c.secret, c.target)
		assert.Equal(t, c.status, status, c.why)
		assert.Equal(t, c.error, body["error"], c.why)
		assert.Nil(t, body["id_token"], c.why)
	}
	assert.Zero(t, idp.Issued())

	good := code()
	status, body := exchange(good, verifier, "s3cret", callback)
	require.Equal(t, http.StatusOK, status, body)
	status, again := exchange(good, verifier, "s3cret", callback)
	assert.Equal(t, http.StatusBadRequest, status, "a code is used once")
	assert.Equal(t, "invalid_grant", again["error"])
	assert.Equal(t, 1, idp.Issued())

	ctx := context.Background()
	provider, err := oidc.NewProvider(ctx, idp.URL)
	require.NoError(t, err, "the discovery document names the provider as its issuer")
	raw, _ := body["id_token"].(string)
	tok, err := provider.Verifier(&oidc.Config{ClientID: "bookflow-console"}).Verify(ctx, raw)
	require.NoError(t, err, "signed with a key of its JWKS, for the client, not expired")
	assert.Equal(t, "n-1", tok.Nonce)
	assert.False(t, tok.IssuedAt.IsZero())
	var claims struct {
		Roles  []string `json:"roles"`
		Venues []string `json:"venues"`
	}
	require.NoError(t, tok.Claims(&claims))
	assert.Equal(t, []string{"front_desk"}, claims.Roles)
	assert.Equal(t, []string{"venue-alpha"}, claims.Venues)
	_, err = provider.Verifier(&oidc.Config{ClientID: "another-client"}).Verify(ctx, raw)
	assert.Error(t, err, "the ID token is for the console's client only")
}
