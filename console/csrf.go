package console

import (
	"context"
	"crypto/subtle"
	"net/http"

	"github.com/labstack/echo/v4"
)

// csrfField and csrfHeader carry a form's CSRF token: the hidden field of every form, or the
// header htmx sends.
const (
	csrfField  = "csrf"
	csrfHeader = "X-CSRF-Token"
)

// crossOrigin refuses unsafe requests a browser says came from another site (Sec-Fetch-Site,
// Origin), before the token is even read.
var crossOrigin = http.NewCrossOriginProtection()

// checkCSRF refuses every POST, PUT, PATCH or DELETE that does not carry the session's CSRF
// token, before anything is read or written: a page on another site can make a signed-in
// browser post a form, but cannot read the token to put in it.
func (c *Console) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(ec echo.Context) error {
		req := ec.Request()
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(ec)
		}
		want := c.sessions.GetString(req.Context(), keyCSRF)
		got := req.Header.Get(csrfHeader)
		if got == "" {
			got = req.PostFormValue(csrfField)
		}
		if crossOrigin.Check(req) != nil || want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			c.cfg.Logger.Warn("console: form refused without its CSRF token", "method", req.Method, "path", req.URL.Path)
			return c.renderPlainError(ec, http.StatusForbidden, c.language(ec).T("error.csrf"))
		}
		return next(ec)
	}
}

// csrfToken is the session's CSRF token, made on first use (a sign-in form needs one before
// anyone is signed in).
func (c *Console) csrfToken(ctx context.Context) string {
	t := c.sessions.GetString(ctx, keyCSRF)
	if t == "" {
		t = newToken()
		c.sessions.Put(ctx, keyCSRF, t)
	}
	return t
}

// sessionCSRF is the session's CSRF token if it has one, for a page that must not start a
// session (an error page, which a refused form from another site also gets).
func (c *Console) sessionCSRF(ctx context.Context) string { return c.sessions.GetString(ctx, keyCSRF) }
