package api

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"github.com/golang-jwt/jwt/v5"
	echojwt "github.com/labstack/echo-jwt/v4"
	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/domain"
)

// principalKey is where authenticate keeps the caller's domain.Principal on the request.
const principalKey = "principal"

// authenticate turns the bearer token into the caller's principal, through Echo's JWT
// middleware: a token the configured verifier accepts, or the break-glass ADMIN_TOKEN. Anything
// else, including no token, is 401. The staff console's own requests carry their principal
// instead (WithPrincipal).
func (s *Server) authenticate() echo.MiddlewareFunc {
	check := s.verifyTokens()
	return func(next echo.HandlerFunc) echo.HandlerFunc { return check(staffOnPrimary(next)) }
}

// staffOnPrimary sends every read of a staff member's request to the primary: staff set stock,
// close slots and take money, and must see it at once; a standby (db.Store.ReadFrom) serves
// customers' and agents' searches only.
func staffOnPrimary(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := principal(c); p.IsStaff() || p.Has(domain.RoleSupplier) {
			c.SetRequest(c.Request().WithContext(db.OnPrimary(c.Request().Context())))
		}
		return next(c)
	}
}

// verifyTokens is the token check of authenticate.
func (s *Server) verifyTokens() echo.MiddlewareFunc {
	return inProcess(echojwt.WithConfig(echojwt.Config{
		ContextKey: principalKey,
		ParseTokenFunc: func(c echo.Context, token string) (any, error) {
			if s.cfg.AdminToken != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.AdminToken)) == 1 {
				s.cfg.Logger.WarnContext(c.Request().Context(), "break-glass ADMIN_TOKEN used", "method", c.Request().Method, "path", c.Path())
				return domain.Principal{Subject: domain.BreakGlassSubject, Roles: []domain.Role{domain.RoleAdmin}}, nil
			}
			if s.cfg.Auth == nil {
				return nil, errors.New("no token verifier is configured")
			}
			return s.cfg.Auth.Verify(c.Request().Context(), token)
		},
		ErrorHandler: func(c echo.Context, err error) error {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="bookflow", error="invalid_token"`)
			var missing *echojwt.TokenExtractionError
			switch {
			case errors.As(err, &missing):
				return newError(http.StatusUnauthorized, "unauthorized", "this route needs Authorization: Bearer <token>")
			case errors.Is(err, jwt.ErrTokenExpired):
				return newError(http.StatusUnauthorized, "unauthorized", "the bearer token has expired")
			}
			return newError(http.StatusUnauthorized, "unauthorized", "the bearer token is not valid")
		},
	}))
}

// allow lets through callers holding any of roles; anyone else is 403.
func allow(roles ...domain.Role) echo.MiddlewareFunc {
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	msg := "this route is for the roles: " + strings.Join(names, ", ")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !principal(c).Has(roles...) {
				return newError(http.StatusForbidden, "forbidden", "%s", msg)
			}
			return next(c)
		}
	}
}

// principal returns the caller authenticate found.
func principal(c echo.Context) domain.Principal {
	p, _ := c.Get(principalKey).(domain.Principal)
	return p
}

// routes registers handlers under a prefix with one middleware chain, without Echo's group
// catch-all routes: unknown paths stay 404 for everyone.
type routes struct {
	g  *echo.Group
	mw []echo.MiddlewareFunc
}

func (r routes) add(method, path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.g.Add(method, path, h, append(r.mw[:len(r.mw):len(r.mw)], mw...)...)
}
