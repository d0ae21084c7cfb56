package testsuite

import (
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/bookflow/bookflow/console"
)

// OIDCProvider is a small OpenID Connect provider for the console's sign-in: discovery, a key
// set, an authorization endpoint that signs in the configured user at once (no login form), and
// a token endpoint that holds the console to what a real provider does: its client id and secret,
// the same redirect URI, a code used once, and the PKCE S256 verifier of the code's challenge.
// It answers an RS256 ID token with iss, aud, exp, iat, nonce and the user's claims.
//
// It listens on localhost while the System listens on 127.0.0.1: to the browser they are
// different sites, so the way back from the provider is a cross-site navigation, as in
// production.
type OIDCProvider struct {
	URL          string // the issuer, also the base of its endpoints
	ClientID     string
	ClientSecret string // empty: a public client, PKCE alone
	// TokenTTL is how long its ID tokens last (5 minutes when zero); Refresh makes it hand out
	// refresh tokens, which give a new ID token for the user SignInAs names then (so a user's
	// roles and sites can change, or end, under a console session).
	TokenTTL time.Duration
	Refresh  bool

	key *rsa.PrivateKey
	kid string

	mu        sync.Mutex
	user      *OIDCUser
	redirects []string             // the client's registered redirect URIs
	codes     map[string]*oidcCode // issued and not yet redeemed
	refusals  []string             // why token requests were refused, in order
	issued    int                  // ID tokens issued
	refreshes map[string]string    // refresh token → the subject it was issued to
}

// OIDCUser is who the provider signs in, and the claims its ID token carries.
type OIDCUser struct {
	Subject string
	Roles   []string
	Hotels  []string
	Venues  []string
}

type oidcCode struct {
	clientID, redirectURI, nonce, challenge string
	user                                    OIDCUser
	expires                                 time.Time
}

// StartOIDCProvider starts a provider for one client, stopped when the test ends. Register the
// console's callback with AllowRedirect and pick who signs in with SignInAs.
func StartOIDCProvider(t testing.TB, clientID, clientSecret string) *OIDCProvider {
	t.Helper()
	p := &OIDCProvider{ClientID: clientID, ClientSecret: clientSecret, key: newRSAKey(t), kid: "oidc-key-1",
		codes: map[string]*oidcCode{}, refreshes: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p.URL = strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	return p
}

// ConsoleConfig is the console's configuration for this provider; its RedirectURL is left for
// NewSystem to fill in with the System's own callback.
func (p *OIDCProvider) ConsoleConfig() *console.OIDCConfig {
	return &console.OIDCConfig{Issuer: p.URL, ClientID: p.ClientID, ClientSecret: p.ClientSecret}
}

// AllowRedirect registers a redirect URI of the client: the provider sends codes nowhere else.
func (p *OIDCProvider) AllowRedirect(uri string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redirects = append(p.redirects, uri)
}

// SignInAs makes u the person the next authorizations sign in.
func (p *OIDCProvider) SignInAs(u OIDCUser) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.user = &u
}

// Refusals are the reasons token requests were refused, in order ("invalid_client: ...").
func (p *OIDCProvider) Refusals() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.refusals)
}

// Issued is how many ID tokens the provider has issued.
func (p *OIDCProvider) Issued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.issued
}

func (p *OIDCProvider) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.URL,
		"authorization_endpoint":                p.URL + "/authorize",
		"token_endpoint":                        p.URL + "/token",
		"jwks_uri":                              p.URL + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		"scopes_supported":                      []string{"openid", "profile"},
	})
}

func (p *OIDCProvider) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": p.kid,
		"alg": "RS256", "use": "sig", "n": base64.RawURLEncoding.EncodeToString(p.key.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(p.key.E)).Bytes())}}})
}

// authorize checks the request, then sends the browser straight back to the redirect URI with a
// code (or access_denied when nobody is set to sign in). A request naming another client or an
// unregistered redirect URI is answered here, never redirected.
func (p *OIDCProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	defer p.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if q.Get("client_id") != p.ClientID || !slices.Contains(p.redirects, redirect) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	answer := back.Query()
	answer.Set("state", q.Get("state"))
	switch {
	case q.Get("response_type") != "code" || !slices.Contains(strings.Fields(q.Get("scope")), "openid"):
		answer.Set("error", "unsupported_response_type")
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		answer.Set("error", "invalid_request") // this provider wants PKCE
	case p.user == nil:
		answer.Set("error", "access_denied")
	default:
		code := randomHex(16)
		p.codes[code] = &oidcCode{clientID: p.ClientID, redirectURI: redirect, nonce: q.Get("nonce"),
			challenge: q.Get("code_challenge"), user: *p.user, expires: time.Now().Add(time.Minute)}
		answer.Set("code", code)
	}
	back.RawQuery = answer.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token redeems a code: the client authenticates (HTTP Basic or the form), the code is spent at
// its first presentation whatever follows, and the redirect URI and PKCE verifier must match.
func (p *OIDCProvider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		p.refuse(w, http.StatusBadRequest, "invalid_request", "unreadable form")
		return
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != p.ClientID || subtle.ConstantTimeCompare([]byte(secret), []byte(p.ClientSecret)) != 1 {
		p.refuse(w, http.StatusUnauthorized, "invalid_client", "wrong client id or secret")
		return
	}
	if r.PostForm.Get("grant_type") == "refresh_token" {
		p.refreshGrant(w, id, r.PostForm.Get("refresh_token"))
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		p.refuse(w, http.StatusBadRequest, "unsupported_grant_type", r.PostForm.Get("grant_type"))
		return
	}
	p.mu.Lock()
	c, ok := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	p.mu.Unlock()
	verifier := r.PostForm.Get("code_verifier")
	sum := sha256.Sum256([]byte(verifier))
	switch {
	case !ok:
		p.refuse(w, http.StatusBadRequest, "invalid_grant", "unknown or spent code")
	case c.clientID != id || time.Now().After(c.expires):
		p.refuse(w, http.StatusBadRequest, "invalid_grant", "code of another client, or expired")
	case r.PostForm.Get("redirect_uri") != c.redirectURI:
		p.refuse(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization's")
	case verifier == "":
		p.refuse(w, http.StatusBadRequest, "invalid_grant", "no code_verifier")
	case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
		p.refuse(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
	default:
		idToken, err := p.idToken(c)
		if err != nil {
			p.refuse(w, http.StatusInternalServerError, "server_error", err.Error())
			return
		}
		p.answerTokens(w, c.user.Subject, idToken)
	}
}

// answerTokens answers a token request with idToken, and a refresh token when Refresh is on.
func (p *OIDCProvider) answerTokens(w http.ResponseWriter, subject, idToken string) {
	p.mu.Lock()
	p.issued++
	answer := map[string]any{"access_token": randomHex(16), "token_type": "Bearer", "expires_in": 300, "id_token": idToken}
	if p.Refresh {
		refresh := randomHex(16)
		p.refreshes[refresh] = subject
		answer["refresh_token"] = refresh
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, answer)
}

// refreshGrant spends a refresh token for a new ID token of the user signed in now, if it is
// still the token's subject.
func (p *OIDCProvider) refreshGrant(w http.ResponseWriter, clientID, refresh string) {
	p.mu.Lock()
	subject, ok := p.refreshes[refresh]
	delete(p.refreshes, refresh)
	user := p.user
	p.mu.Unlock()
	if !ok || user == nil || user.Subject != subject {
		p.refuse(w, http.StatusBadRequest, "invalid_grant", "unknown, spent or revoked refresh token")
		return
	}
	idToken, err := p.idToken(&oidcCode{clientID: clientID, user: *user})
	if err != nil {
		p.refuse(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	p.answerTokens(w, subject, idToken)
}

func (p *OIDCProvider) idToken(c *oidcCode) (string, error) {
	now := time.Now()
	ttl := p.TokenTTL
	if ttl == 0 {
		ttl = 5 * time.Minute
	}
	claims := jwt.MapClaims{"iss": p.URL, "sub": c.user.Subject, "aud": c.clientID, "iat": now.Unix(),
		"exp": now.Add(ttl).Unix(), "roles": nonNil(c.user.Roles)}
	if c.nonce != "" {
		claims["nonce"] = c.nonce
	}
	if len(c.user.Hotels) > 0 {
		claims["hotels"] = c.user.Hotels
	}
	if len(c.user.Venues) > 0 {
		claims["venues"] = c.user.Venues
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = p.kid
	return tok.SignedString(p.key)
}

func (p *OIDCProvider) refuse(w http.ResponseWriter, status int, code, why string) {
	p.mu.Lock()
	p.refusals = append(p.refusals, code+": "+why)
	p.mu.Unlock()
	writeJSON(w, status, map[string]string{"error": code, "error_description": why})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
