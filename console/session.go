package console

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// What a session holds.
const (
	keyPrincipal = "principal" // the signed-in person, as JSON
	keyCSRF      = "csrf"      // the token every form carries
	keyLanguage  = "lang"      // the language picked, when one was
	keyFlash     = "flash"     // a message for the next page, after a redirect
	keyOIDC      = "oidc"      // a sign-in under way: state, nonce, PKCE verifier, as JSON
	keyUntil     = "until"     // when the identity provider's sign-in ends (unix seconds), for its sessions
	keyRefresh   = "refresh"   // the provider's refresh token, when it gave one
)

// handler is a page for a signed-in person.
type handler func(r *request) error

// request is one page request of a signed-in person.
type request struct {
	echo.Context
	c    *Console
	who  domain.Principal
	text catalogue
	csrf string
}

// ctx is the request's context.
func (r *request) ctx() context.Context { return r.Request().Context() }

// signedIn serves h to a signed-in person holding one of roles. Nobody signed in is sent to the
// sign-in page (and back here afterwards); someone without the roles gets the 403 page.
func (c *Console) signedIn(h handler, roles []domain.Role) echo.HandlerFunc {
	return func(ec echo.Context) error {
		p, ok := c.current(ec.Request().Context())
		if !ok {
			req := ec.Request()
			next := req.URL.RequestURI()
			if req.Method != http.MethodGet {
				next = Prefix + "/"
			}
			if req.Header.Get("HX-Request") == "true" {
				// htmx would follow a redirect and swap the whole sign-in page into a fragment of
				// the page: send the browser itself there, back to the page it shows afterwards.
				next = Prefix + "/"
				if cur, err := url.Parse(req.Header.Get("HX-Current-URL")); err == nil {
					next = cur.RequestURI()
				}
				ec.Response().Header().Set("HX-Redirect", Prefix+"/sign-in?next="+url.QueryEscape(safeNext(next)))
				return ec.NoContent(http.StatusUnauthorized)
			}
			return ec.Redirect(http.StatusSeeOther, Prefix+"/sign-in?next="+url.QueryEscape(next))
		}
		r := &request{Context: ec, c: c, who: p, text: c.language(ec), csrf: c.csrfToken(ec.Request().Context())}
		if !p.Has(roles...) {
			return c.renderError(r, http.StatusForbidden, r.text.T("error.role"))
		}
		return h(r)
	}
}

// principal is who is signed in to the session, if anyone.
func (c *Console) principal(ctx context.Context) (domain.Principal, bool) {
	raw := c.sessions.GetString(ctx, keyPrincipal)
	if raw == "" {
		return domain.Principal{}, false
	}
	var p domain.Principal
	if json.Unmarshal([]byte(raw), &p) != nil || p.Subject == "" {
		return domain.Principal{}, false
	}
	return p, true
}

// current is who is signed in, as long as their sign-in lasts: a session made by the identity
// provider ends with its ID token, unless the provider's refresh token gets a new one (with
// the roles and sites it names now). A console session never gives more than the token would.
func (c *Console) current(ctx context.Context) (domain.Principal, bool) {
	p, ok := c.principal(ctx)
	until := c.sessions.GetInt64(ctx, keyUntil)
	if !ok || until == 0 || c.cfg.Now().Unix() < until {
		return p, ok
	}
	if c.oidc != nil {
		refreshed, err := c.oidc.refresh(ctx, c.sessions.GetString(ctx, keyRefresh))
		if err == nil && refreshed.who.Subject != p.Subject { // OpenID Connect: a refreshed ID token names the same subject
			err = errors.New("the refreshed ID token names another subject")
		}
		if err == nil && c.keep(ctx, refreshed) == nil {
			return refreshed.who, true
		}
		c.cfg.Logger.Info("console: the sign-in ended with its token", "subject", p.Subject, "err", err)
	}
	_ = c.sessions.Destroy(ctx)
	return domain.Principal{}, false
}

// signIn makes the person signed in the session's, under a new session token (one fixed before
// sign-in is worthless after it) and a new CSRF token.
func (c *Console) signIn(ctx context.Context, s signedInAs) error {
	if err := c.sessions.RenewToken(ctx); err != nil {
		return err
	}
	// Nothing of whoever used the session before stays (their refresh token, pending keys,
	// a flash) but the language picked.
	lang := c.sessions.GetString(ctx, keyLanguage)
	if err := c.sessions.Clear(ctx); err != nil {
		return err
	}
	if lang != "" {
		c.sessions.Put(ctx, keyLanguage, lang)
	}
	c.sessions.Put(ctx, keyCSRF, newToken())
	return c.keep(ctx, s)
}

// signedInAs is who signs in, and until when their identity provider vouches for them (zero:
// the development sign-in, for the session's lifetime).
type signedInAs struct {
	who     domain.Principal
	until   time.Time
	refresh string
}

func (c *Console) keep(ctx context.Context, s signedInAs) error {
	raw, err := json.Marshal(s.who)
	if err != nil {
		return err
	}
	c.sessions.Put(ctx, keyPrincipal, string(raw))
	if s.until.IsZero() {
		c.sessions.Remove(ctx, keyUntil)
	} else {
		c.sessions.Put(ctx, keyUntil, s.until.Unix())
	}
	if s.refresh != "" {
		c.sessions.Put(ctx, keyRefresh, s.refresh)
	}
	return nil
}

// signOut ends the session: its row is deleted, so its cookie opens nothing any more.
func (c *Console) signOut(ec echo.Context) error {
	if err := c.sessions.Destroy(ec.Request().Context()); err != nil {
		return err
	}
	return ec.Redirect(http.StatusSeeOther, Prefix+"/sign-in?signedOut=1")
}

// flash keeps msg for the next page the person sees.
func (r *request) flash(msg string) { r.c.sessions.Put(r.ctx(), keyFlash, msg) }

// newToken is 32 random bytes, URL-safe.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// safeNext is where to go after sign-in: a path under the console, never another site nor
// another part of this one. A path with dot segments (which a browser resolves, also when
// percent-encoded), doubled slashes or backslashes (which a browser reads as slashes) is refused
// rather than cleaned.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.User != nil || strings.Contains(next, "\\") {
		return Prefix + "/"
	}
	clean := path.Clean(u.Path)
	if (clean != u.Path && clean+"/" != u.Path) || (clean != Prefix && !strings.HasPrefix(clean, Prefix+"/")) {
		return Prefix + "/"
	}
	return u.RequestURI()
}
