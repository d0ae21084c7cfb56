package auth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
	"github.com/bookflow/bookflow/testsuite"
)

var (
	secret = []byte("auth-tests-secret-of-32-bytes!!!")
	alice  = domain.Principal{Subject: "alice", Roles: []domain.Role{domain.RoleCustomer}}
)

func hs256(t *testing.T, cfg auth.Config) *auth.Verifier {
	t.Helper()
	cfg.Secret = secret
	v, err := auth.NewVerifier(context.Background(), cfg)
	require.NoError(t, err)
	return v
}

// sign signs claims with the given method and key, for tokens Mint would never make.
func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

func fresh(sub string) jwt.MapClaims {
	return jwt.MapClaims{"sub": sub, "roles": []string{"customer"}, "exp": time.Now().Add(time.Hour).Unix()}
}

func TestMintedTokensVerify(t *testing.T) {
	v := hs256(t, auth.Config{})
	desk := domain.Principal{Subject: "desk@grand", Roles: []domain.Role{domain.RoleFrontDesk, "superuser"},
		Hotels: []string{"grand-budapest"}}
	token, err := auth.Mint(secret, desk, time.Hour, auth.MintOptions{})
	require.NoError(t, err)
	p, err := v.Verify(context.Background(), token)
	require.NoError(t, err)
	assert.Equal(t, "desk@grand", p.Subject)
	assert.Equal(t, []domain.Role{domain.RoleFrontDesk}, p.Roles, "roles bookflow does not know are dropped")
	assert.Equal(t, []string{"grand-budapest"}, p.Hotels)
}

func TestRefusedTokens(t *testing.T) {
	v := hs256(t, auth.Config{Issuer: "https://id.example", Audience: "bookflow"})
	ok := auth.MintOptions{Issuer: "https://id.example", Audience: "bookflow"}
	good, err := auth.Mint(secret, alice, time.Hour, ok)
	require.NoError(t, err)
	_, err = v.Verify(context.Background(), good)
	require.NoError(t, err, "the control: a good token passes")

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	mint := func(p domain.Principal, ttl time.Duration, o auth.MintOptions) string {
		tok, err := auth.Mint(secret, p, ttl, o)
		require.NoError(t, err)
		return tok
	}
	noExp := fresh("alice")
	delete(noExp, "exp")
	noExp["iss"], noExp["aud"] = "https://id.example", "bookflow"
	withIssAud := func(c jwt.MapClaims) jwt.MapClaims { c["iss"], c["aud"] = "https://id.example", "bookflow"; return c }

	cases := map[string]string{
		"expired an hour ago": mint(alice, time.Hour, auth.MintOptions{Issuer: ok.Issuer, Audience: ok.Audience,
			Now: time.Now().Add(-2 * time.Hour)}),
		"signed with another key": sign(t, jwt.SigningMethodHS256, []byte("another-secret-of-32-bytes-long!"), withIssAud(fresh("alice")), ""),
		"alg none":                sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, withIssAud(fresh("alice")), ""),
		"switched to RS256":       sign(t, jwt.SigningMethodRS256, rsaKey, withIssAud(fresh("alice")), ""),
		"no exp":                  sign(t, jwt.SigningMethodHS256, secret, noExp, ""),
		"wrong issuer":            mint(alice, time.Hour, auth.MintOptions{Issuer: "https://evil.example", Audience: "bookflow"}),
		"wrong audience":          mint(alice, time.Hour, auth.MintOptions{Issuer: ok.Issuer, Audience: "another-app"}),
		"no subject":              sign(t, jwt.SigningMethodHS256, secret, withIssAud(fresh("")), ""),
		"a walk-in guest's id":    sign(t, jwt.SigningMethodHS256, secret, withIssAud(fresh("walk-in:+4915112345678")), ""),
		"a history step's name":   sign(t, jwt.SigningMethodHS256, secret, withIssAud(fresh("system:hold-timer")), ""),
		"not a JWT":               "hello",
	}
	for name, token := range cases {
		_, err := v.Verify(context.Background(), token)
		assert.ErrorIs(t, err, auth.ErrUnauthenticated, name)
	}
}

func TestClockSkewIsAllowedUpToTheLimit(t *testing.T) {
	v := hs256(t, auth.Config{ClockSkew: 30 * time.Second})
	justExpired, err := auth.Mint(secret, alice, time.Minute, auth.MintOptions{Now: time.Now().Add(-time.Minute - 10*time.Second)})
	require.NoError(t, err)
	_, err = v.Verify(context.Background(), justExpired)
	assert.NoError(t, err, "10 s past exp is within the allowance")
	longExpired, err := auth.Mint(secret, alice, time.Minute, auth.MintOptions{Now: time.Now().Add(-2 * time.Minute)})
	require.NoError(t, err)
	_, err = v.Verify(context.Background(), longExpired)
	assert.ErrorIs(t, err, auth.ErrUnauthenticated)
}

func TestConfigurationMistakesAreRefused(t *testing.T) {
	_, err := auth.NewVerifier(context.Background(), auth.Config{Secret: []byte("short")})
	assert.Error(t, err, "a short secret")
	_, err = auth.NewVerifier(context.Background(), auth.Config{Secret: secret, JWKSURL: "http://127.0.0.1:1/jwks"})
	assert.Error(t, err, "both a secret and a JWKS URL")
	_, err = auth.NewVerifier(context.Background(), auth.Config{})
	assert.Error(t, err, "nothing to verify with")
	_, err = auth.NewVerifier(context.Background(), auth.Config{JWKSURL: "http://127.0.0.1:1/jwks", Audience: "bookflow"})
	assert.Error(t, err, "a JWKS without an issuer would take tokens minted for other applications")
	_, err = auth.NewVerifier(context.Background(), auth.Config{Secret: []byte("short"), AllowShortSecret: true})
	assert.NoError(t, err, "local development may name any secret")
	_, err = auth.Mint(nil, alice, time.Hour, auth.MintOptions{})
	assert.Error(t, err)
}

func TestJWKSKeysAreFetchedRotatedAndUnknownKeysRefused(t *testing.T) {
	idp := testsuite.StartJWKSProvider(t)
	idp.Delay = 50 * time.Millisecond // a provider across a network, not on loopback
	v := idp.Verifier(t)
	verify := func(token string) error { _, err := v.Verify(context.Background(), token); return err }

	first := idp.Token(t, alice)
	require.NoError(t, verify(first), "a token signed by the provider's key")
	require.NoError(t, verify(idp.Token(t, alice)))
	assert.Equal(t, 1, idp.Fetches(), "the key set is fetched once and cached")

	// The provider rotates to a new key: its first token makes the verifier fetch the set again.
	idp.Rotate(t)
	require.NoError(t, verify(idp.Token(t, alice)), "the rotated key is picked up")
	assert.Equal(t, 2, idp.Fetches())
	assert.ErrorIs(t, verify(first), auth.ErrUnauthenticated, "the retired key went with the refresh")

	// A key id the provider never published is refused at once: refreshes for unknown ids are
	// rate limited, and no request waits for the limiter.
	began := time.Now()
	assert.ErrorIs(t, verify(idp.ForeignToken(t)), auth.ErrUnauthenticated)
	assert.Less(t, time.Since(began), 2*time.Second)
	assert.Equal(t, 2, idp.Fetches(), "an unknown key id cannot make the verifier hammer the provider")

	// Algorithm switching: HMAC or unsigned tokens are never accepted from a JWKS deployment.
	claims := func() jwt.MapClaims {
		c := fresh("mallory")
		c["iss"], c["aud"] = testsuite.ProviderIssuer, testsuite.ProviderAudience
		return c
	}
	assert.ErrorIs(t, verify(sign(t, jwt.SigningMethodHS256, []byte("the-public-key-bytes-as-a-secret"), claims(), "key-2")),
		auth.ErrUnauthenticated)
	assert.ErrorIs(t, verify(sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(), "key-2")),
		auth.ErrUnauthenticated)
}
