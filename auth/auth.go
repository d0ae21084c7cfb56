// Package auth verifies and mints the bearer tokens (JWTs) that tell bookflow's API who is
// calling: HS256 under a shared secret for local use, or an identity provider's keys from its
// JWKS URL in production.
package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"

	"github.com/bookflow/bookflow/domain"
)

// Defaults for Config fields left zero.
const (
	DefaultClockSkew = 30 * time.Second
	// DefaultUnknownKIDRefresh is how often, at most, a token signed with a key id the cached key
	// set does not know makes the verifier fetch the key set again.
	DefaultUnknownKIDRefresh = 30 * time.Second
	// jwksRefresh is how often the key set is fetched anyway, so a rotation is picked up even
	// while tokens with made-up key ids use up the refreshes above.
	jwksRefresh = 5 * time.Minute
	// jwksTimeout bounds one fetch of the key set, and how long a request may wait for a refresh.
	jwksTimeout = 10 * time.Second
	// MinSecretBytes is the shortest HS256 secret accepted: the hash's own size.
	MinSecretBytes = 32
)

// ErrUnauthenticated: the token is missing, malformed, expired, or not signed by a trusted key.
var ErrUnauthenticated = errors.New("unauthenticated")

// hmacMethods and publicKeyMethods are the only algorithms accepted, one family per mode: an
// HS256 deployment never takes a public-key token and a JWKS deployment never takes an HMAC
// one, so a token cannot switch algorithms, and "none" is never accepted.
var (
	hmacMethods      = []string{"HS256"}
	publicKeyMethods = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)

// Config says which tokens to trust.
type Config struct {
	// Secret is the HS256 key (AUTH_JWT_SECRET), at least MinSecretBytes long unless
	// AllowShortSecret is set (local development, where the environment may name any secret).
	Secret           []byte
	AllowShortSecret bool
	// JWKSURL is the identity provider's key set (AUTH_JWKS_URL); its keys are cached, refreshed
	// every 5 minutes and when a token names a key id not in the cache. Set Secret or JWKSURL,
	// not both.
	JWKSURL string
	// Issuer and Audience must match the token's iss and aud: when set, and always with a JWKS
	// (one identity provider signs tokens for many applications).
	Issuer   string
	Audience string
	// ClockSkew is the allowance for clocks that disagree, on exp, nbf and iat.
	ClockSkew time.Duration
	// UnknownKIDRefresh bounds how often an unknown key id refreshes the key set.
	UnknownKIDRefresh time.Duration
	// HTTPClient fetches the key set; http.DefaultClient's transport with a 10 s timeout when nil.
	HTTPClient *http.Client
}

// Claims are the token's claims: the registered ones, the roles, the hotels and venues a front
// desk works for, the agent and channel an agent sells as, and the suppliers supplier staff
// work for.
type Claims struct {
	jwt.RegisteredClaims
	Roles     []string `json:"roles"`
	Hotels    []string `json:"hotels,omitempty"`
	Venues    []string `json:"venues,omitempty"`
	Agent     string   `json:"agent,omitempty"`
	Channel   string   `json:"channel,omitempty"`
	Suppliers []string `json:"suppliers,omitempty"`
}

// Verifier checks bearer tokens and turns them into principals.
type Verifier struct {
	parser  *jwt.Parser
	keyFunc func(ctx context.Context) jwt.Keyfunc
}

// NewVerifier returns a verifier for cfg. With a JWKS URL it starts fetching the key set in the
// background until ctx ends; an identity provider that is down at start is retried, not fatal.
func NewVerifier(ctx context.Context, cfg Config) (*Verifier, error) {
	if cfg.ClockSkew <= 0 {
		cfg.ClockSkew = DefaultClockSkew
	}
	if cfg.UnknownKIDRefresh <= 0 {
		cfg.UnknownKIDRefresh = DefaultUnknownKIDRefresh
	}
	opts := []jwt.ParserOption{jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(cfg.ClockSkew)}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v := &Verifier{}
	switch {
	case len(cfg.Secret) > 0 && cfg.JWKSURL != "":
		return nil, errors.New("set AUTH_JWT_SECRET or AUTH_JWKS_URL, not both")
	case cfg.JWKSURL != "":
		if cfg.Issuer == "" || cfg.Audience == "" {
			return nil, errors.New("AUTH_JWKS_URL needs AUTH_ISSUER and AUTH_AUDIENCE: an identity provider signs " +
				"tokens for other applications too")
		}
		client := cfg.HTTPClient
		if client == nil {
			client = &http.Client{Timeout: jwksTimeout}
		}
		kf, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{cfg.JWKSURL}, keyfunc.Override{
			Client:            client,
			RefreshInterval:   jwksRefresh,
			RefreshUnknownKID: rate.NewLimiter(rate.Every(cfg.UnknownKIDRefresh), 1),
			// The wait for the limiter and the fetch share this deadline. A refresh further off
			// than that is not waited for: the unknown key id is refused at once.
			RateLimitWaitMax: jwksTimeout,
			HTTPTimeout:      jwksTimeout,
		})
		if err != nil {
			return nil, fmt.Errorf("AUTH_JWKS_URL: %w", err)
		}
		v.keyFunc = kf.KeyfuncCtx
		opts = append(opts, jwt.WithValidMethods(publicKeyMethods))
	case len(cfg.Secret) > 0:
		if len(cfg.Secret) < MinSecretBytes && !cfg.AllowShortSecret {
			return nil, fmt.Errorf("AUTH_JWT_SECRET must be at least %d bytes", MinSecretBytes)
		}
		secret := slices.Clone(cfg.Secret)
		v.keyFunc = func(context.Context) jwt.Keyfunc {
			return func(*jwt.Token) (any, error) { return secret, nil }
		}
		opts = append(opts, jwt.WithValidMethods(hmacMethods))
	default:
		return nil, errors.New("no AUTH_JWT_SECRET or AUTH_JWKS_URL: nothing to verify tokens with")
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

// Verify checks a token's signature, algorithm, expiry (required), issuer and audience, and
// returns the principal it names. Roles bookflow does not know are ignored.
func (v *Verifier) Verify(ctx context.Context, token string) (domain.Principal, error) {
	var claims Claims
	if _, err := v.parser.ParseWithClaims(token, &claims, v.keyFunc(ctx)); err != nil {
		return domain.Principal{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	return claims.Principal()
}

// Principal is the principal the claims name, whichever token carried them (an API bearer
// token, or the ID token the staff console's sign-in receives). Roles bookflow does not know
// are ignored.
func (claims Claims) Principal() (domain.Principal, error) {
	if err := domain.ValidateTokenSubject("sub", claims.Subject); err != nil {
		return domain.Principal{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	p := domain.Principal{Subject: claims.Subject, Hotels: claims.Hotels, Venues: claims.Venues,
		Agent: claims.Agent, Channel: claims.Channel, Suppliers: claims.Suppliers}
	for _, r := range claims.Roles {
		if role := domain.Role(r); role.Known() && !slices.Contains(p.Roles, role) {
			p.Roles = append(p.Roles, role)
		}
	}
	if p.Has(domain.RoleAgent) && (domain.ValidateID("agent", p.Agent) != nil || domain.ValidateID("channel", p.Channel) != nil) {
		// An agent's sales are judged by its channel's rules: a token without them is refused,
		// never treated as a direct sale.
		return domain.Principal{}, fmt.Errorf("%w: an agent token needs its agent and channel claims", ErrUnauthenticated)
	}
	return p, nil
}

// MintOptions are the optional parts of a minted token.
type MintOptions struct {
	Issuer   string
	Audience string
	Now      time.Time // time.Now when zero
}

// Mint signs an HS256 token for p that expires after ttl: local tokens for `bookflow token`,
// scripts/dev and the tests.
func Mint(secret []byte, p domain.Principal, ttl time.Duration, o MintOptions) (string, error) {
	if len(secret) == 0 {
		return "", errors.New("no signing secret")
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	claims := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   p.Subject,
			Issuer:    o.Issuer,
			IssuedAt:  jwt.NewNumericDate(o.Now),
			ExpiresAt: jwt.NewNumericDate(o.Now.Add(ttl)),
		},
		Hotels:    p.Hotels,
		Venues:    p.Venues,
		Agent:     p.Agent,
		Channel:   p.Channel,
		Suppliers: p.Suppliers,
	}
	if o.Audience != "" {
		claims.Audience = jwt.ClaimStrings{o.Audience}
	}
	for _, r := range p.Roles {
		claims.Roles = append(claims.Roles, string(r))
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
}
