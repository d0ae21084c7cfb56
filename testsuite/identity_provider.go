package testsuite

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
)

// IdentityProvider is a stand-in for an OpenID identity provider: it publishes its RSA signing
// keys as a JWKS on a local URL, signs RS256 tokens with the newest one, and rotates on request.
type IdentityProvider struct {
	URL string
	// Delay is how long the key set endpoint takes to answer, as a real provider's does.
	Delay time.Duration

	mu      sync.Mutex
	keys    map[string]*rsa.PrivateKey // the published keys, by key id
	current string                     // the key id new tokens are signed with
	serial  int
	fetches int
}

// StartJWKSProvider starts an identity provider with one key, stopped when the test ends.
func StartJWKSProvider(t testing.TB) *IdentityProvider {
	t.Helper()
	p := &IdentityProvider{keys: map[string]*rsa.PrivateKey{}}
	p.Rotate(t)
	srv := httptest.NewServer(http.HandlerFunc(p.serveJWKS))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + "/.well-known/jwks.json"
	return p
}

// The issuer and audience its tokens carry, and verifiers require.
const (
	ProviderIssuer   = "https://id.bookflow.test/"
	ProviderAudience = "bookflow-api"
)

func (p *IdentityProvider) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	time.Sleep(p.Delay)
	p.fetches++
	set := []map[string]string{}
	for kid, k := range p.keys {
		set = append(set, map[string]string{"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
			"n": base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes())})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"keys": set})
}

// Rotate replaces the published key with a new one: tokens signed before no longer verify once
// a verifier has fetched the new set.
func (p *IdentityProvider) Rotate(t testing.TB) {
	t.Helper()
	k := newRSAKey(t)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.serial++
	p.current = fmt.Sprintf("key-%d", p.serial)
	p.keys = map[string]*rsa.PrivateKey{p.current: k}
}

// Fetches says how often the key set was fetched.
func (p *IdentityProvider) Fetches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fetches
}

// Verifier returns a verifier that trusts this provider's JWKS, stopped when the test ends.
func (p *IdentityProvider) Verifier(t testing.TB) *auth.Verifier {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v, err := auth.NewVerifier(ctx, auth.Config{JWKSURL: p.URL, Issuer: ProviderIssuer, Audience: ProviderAudience})
	require.NoError(t, err)
	return v
}

// Token signs a token for pr with the current key, valid for an hour.
func (p *IdentityProvider) Token(t testing.TB, pr domain.Principal) string {
	t.Helper()
	p.mu.Lock()
	kid, key := p.current, p.keys[p.current]
	p.mu.Unlock()
	return SignRS256(t, key, kid, pr)
}

// ForeignToken signs a customer token with a key this provider never published.
func (p *IdentityProvider) ForeignToken(t testing.TB) string {
	t.Helper()
	return SignRS256(t, newRSAKey(t), "key-never-published", domain.Principal{Subject: "mallory",
		Roles: []domain.Role{domain.RoleCustomer}})
}

// SignRS256 signs a token for pr with key, naming kid in its header.
func SignRS256(t testing.TB, key *rsa.PrivateKey, kid string, pr domain.Principal) string {
	t.Helper()
	claims := auth.Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: pr.Subject, Issuer: ProviderIssuer,
		Audience: jwt.ClaimStrings{ProviderAudience}, ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))},
		Hotels: pr.Hotels, Venues: pr.Venues}
	for _, r := range pr.Roles {
		claims.Roles = append(claims.Roles, string(r))
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

func newRSAKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return k
}
