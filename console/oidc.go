package console

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"
	"golang.org/x/sync/singleflight"

	"github.com/bookflow/bookflow/auth"
	"github.com/bookflow/bookflow/domain"
)

// OIDCConfig is the identity provider staff sign in with: the one whose keys verify the API's
// tokens (AUTH_ISSUER), found by its discovery document.
type OIDCConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret string // empty for a public client: PKCE alone then protects the code
	// RedirectURL is this console's callback as the provider knows it:
	// <the console's public address>/console/oidc/callback.
	RedirectURL string
	// HTTPClient reaches the provider (discovery, keys, token); one with a 10 s timeout when nil.
	HTTPClient *http.Client
}

// oidcFlow is the authorization code flow with PKCE against one provider.
type oidcFlow struct {
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
	client   *http.Client

	group     singleflight.Group // one refresh at a time per refresh token
	mu        sync.Mutex
	refreshed map[string]refreshDone // refresh token → its answer, for refreshReuse
}

// oidcPending is a sign-in under way, kept in the session until the provider sends the person
// back: the state that names it, the nonce its ID token must carry, the PKCE verifier, and where
// to go next.
type oidcPending struct {
	State, Nonce, Verifier, Next string
	Started                      time.Time
}

// oidcPendingFor bounds how long a person may take at the provider.
const oidcPendingFor = 10 * time.Minute

func newOIDCFlow(ctx context.Context, cfg OIDCConfig) (*oidcFlow, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" || cfg.RedirectURL == "" {
		return nil, fmt.Errorf("console: OpenID Connect needs the issuer, a client id and the redirect URL")
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, client), cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("console: the identity provider's discovery at %s: %w", cfg.Issuer, err)
	}
	return &oidcFlow{
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: provider.Endpoint(),
			RedirectURL: cfg.RedirectURL, Scopes: []string{oidc.ScopeOpenID, "profile"}},
		verifier: provider.VerifierContext(oidc.ClientContext(context.WithoutCancel(ctx), client),
			&oidc.Config{ClientID: cfg.ClientID}),
		client: client, refreshed: map[string]refreshDone{},
	}, nil
}

// oidcStart sends the person to the provider with a fresh state, nonce and PKCE challenge.
func (c *Console) oidcStart(ec echo.Context) error {
	if c.oidc == nil {
		return c.notFound(ec)
	}
	p := oidcPending{State: newToken(), Nonce: newToken(), Verifier: oauth2.GenerateVerifier(),
		Next: safeNext(ec.QueryParam("next")), Started: c.cfg.Now()}
	raw, _ := json.Marshal(p)
	c.sessions.Put(ec.Request().Context(), keyOIDC, string(raw))
	return ec.Redirect(http.StatusFound, c.oidc.oauth.AuthCodeURL(p.State, oidc.Nonce(p.Nonce),
		oauth2.S256ChallengeOption(p.Verifier)))
}

// oidcCallback takes the provider's answer: the state must be the session's, the code is
// exchanged with the PKCE verifier, and the ID token (signature, issuer, audience, expiry,
// nonce) names the person, whose roles and sites come from its claims as an API token's do.
func (c *Console) oidcCallback(ec echo.Context) error {
	text := c.language(ec)
	if c.oidc == nil {
		return c.notFound(ec)
	}
	ctx := ec.Request().Context()
	var p oidcPending
	if raw := c.sessions.PopString(ctx, keyOIDC); raw == "" || json.Unmarshal([]byte(raw), &p) != nil ||
		p.State == "" || ec.QueryParam("state") != p.State || c.cfg.Now().Sub(p.Started) > oidcPendingFor {
		return c.renderPlainError(ec, http.StatusBadRequest, text.T("signin.oidcState"))
	}
	if e := ec.QueryParam("error"); e != "" {
		c.cfg.Logger.Warn("console: the identity provider refused the sign-in", "error", e)
		return c.renderPlainError(ec, http.StatusForbidden, text.T("signin.oidcRefused"))
	}
	token, err := c.oidc.oauth.Exchange(oidc.ClientContext(ctx, c.oidc.client), ec.QueryParam("code"),
		oauth2.VerifierOption(p.Verifier))
	if err != nil {
		c.cfg.Logger.Warn("console: the sign-in's code exchange failed", "err", err)
		return c.renderPlainError(ec, http.StatusForbidden, text.T("signin.oidcFailed"))
	}
	rawID, _ := token.Extra("id_token").(string)
	idToken, err := c.oidc.verifier.Verify(ctx, rawID)
	if err != nil || idToken.Nonce != p.Nonce {
		c.cfg.Logger.Warn("console: the sign-in's ID token was refused", "err", err)
		return c.renderPlainError(ec, http.StatusForbidden, text.T("signin.oidcFailed"))
	}
	who, err := staffOf(idToken)
	if err != nil {
		return c.renderPlainError(ec, http.StatusForbidden, text.T("signin.notStaff"))
	}
	if err := c.signIn(ctx, signedInAs{who: who, until: idToken.Expiry, refresh: token.RefreshToken}); err != nil {
		return err
	}
	c.cfg.Logger.Info("console: signed in", "subject", who.Subject)
	return ec.Redirect(http.StatusSeeOther, p.Next)
}

// staffOf is the staff member an ID token names, by its claims as an API token's are read.
func staffOf(idToken *oidc.IDToken) (domain.Principal, error) {
	var claims auth.Claims
	if err := idToken.Claims(&claims); err != nil {
		return domain.Principal{}, err
	}
	who, err := claims.Principal()
	if err == nil && !who.IsStaff() {
		err = errors.New("no staff role")
	}
	return who, err
}

// refresh asks the provider for a new ID token with the refresh token, when there is one: the
// sign-in goes on with the roles and sites the provider names now, or ends. Pages loaded at
// once after the token expired share one refresh, and one a moment later gets its answer: a
// provider that rotates refresh tokens would refuse the old one a second time.
func (f *oidcFlow) refresh(ctx context.Context, refreshToken string) (signedInAs, error) {
	if refreshToken == "" {
		return signedInAs{}, errors.New("the sign-in has ended and the provider gave no refresh token")
	}
	f.mu.Lock()
	if done, ok := f.refreshed[refreshToken]; ok && time.Since(done.at) < refreshReuse {
		f.mu.Unlock()
		return done.as, nil
	}
	f.mu.Unlock()
	v, err, _ := f.group.Do(refreshToken, func() (any, error) {
		s, err := f.refreshNow(ctx, refreshToken)
		if err == nil {
			f.mu.Lock()
			for k, done := range f.refreshed {
				if time.Since(done.at) >= refreshReuse {
					delete(f.refreshed, k)
				}
			}
			f.refreshed[refreshToken] = refreshDone{as: s, at: time.Now()}
			f.mu.Unlock()
		}
		return s, err
	})
	if err != nil {
		return signedInAs{}, err
	}
	return v.(signedInAs), nil
}

// refreshReuse is how long a refresh's answer serves the pages that asked with the same
// refresh token.
const refreshReuse = time.Minute

type refreshDone struct {
	as signedInAs
	at time.Time
}

func (f *oidcFlow) refreshNow(ctx context.Context, refreshToken string) (signedInAs, error) {
	ctx = oidc.ClientContext(ctx, f.client)
	token, err := f.oauth.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken, Expiry: time.Unix(1, 0)}).Token()
	if err != nil {
		return signedInAs{}, err
	}
	rawID, _ := token.Extra("id_token").(string)
	idToken, err := f.verifier.Verify(ctx, rawID)
	if err != nil {
		return signedInAs{}, err
	}
	who, err := staffOf(idToken)
	if err != nil {
		return signedInAs{}, err
	}
	return signedInAs{who: who, until: idToken.Expiry, refresh: cmp.Or(token.RefreshToken, refreshToken)}, nil
}
