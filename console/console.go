// Package console is the staff console: server-rendered pages in the browser for the front
// desk, finance and admins, served by bookflow itself under /console. Staff sign in with the
// identity provider (OpenID Connect, authorization code with PKCE) or, locally, with the
// development sign-in; the session lives in PostgreSQL behind an HttpOnly cookie, and every form
// carries a CSRF token. Every page reads and acts through the API's own handler, in process, as
// the signed-in person (api.WithPrincipal), so the console has the API's role checks, site checks,
// validation and audit, never a copy of them.
package console

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// Prefix is where the console is served.
const Prefix = "/console"

// Config is what the console needs.
type Config struct {
	// API is the API's own handler; the console's reads and actions go through it.
	API http.Handler
	// Pool holds the sessions table.
	Pool *pgxpool.Pool
	// OIDC, when set, signs staff in with the identity provider.
	OIDC *OIDCConfig
	// DevSignIn offers local development's sign-in, which picks a role and a site without a
	// password. Never set it where real secrets are configured.
	DevSignIn bool
	// InsecureCookie drops the cookie's Secure attribute, for a console reached over plain HTTP
	// on a host a browser does not treat as secure (localhost and 127.0.0.1 are).
	InsecureCookie bool
	// SessionLifetime bounds a session (DefaultSessionLifetime when zero); it also ends after
	// SessionIdle without a request (DefaultSessionIdle when zero).
	SessionLifetime, SessionIdle time.Duration
	Logger                       *slog.Logger
	Now                          func() time.Time // time.Now when nil
}

// Session defaults: a front desk's shift, and a break away from the desk.
const (
	DefaultSessionLifetime = 12 * time.Hour
	DefaultSessionIdle     = 2 * time.Hour
	cookieName             = "bookflow_console"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Console serves the staff console's pages.
type Console struct {
	cfg      Config
	sessions *scs.SessionManager
	api      apiClient
	pages    *pages
	oidc     *oidcFlow
}

// Mount adds the console's routes to e under Prefix. ctx bounds the session store's clean-up and
// the identity provider's discovery.
func Mount(ctx context.Context, e *echo.Echo, cfg Config) (*Console, error) {
	if cfg.API == nil || cfg.Pool == nil {
		return nil, errors.New("console: API and Pool are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	pg, err := parsePages()
	if err != nil {
		return nil, err
	}
	c := &Console{cfg: cfg, api: apiClient{h: cfg.API}, pages: pg, sessions: newSessions(ctx, cfg)}
	if cfg.OIDC != nil {
		if c.oidc, err = newOIDCFlow(ctx, *cfg.OIDC); err != nil {
			return nil, err
		}
	}
	c.routes(e)
	return c, nil
}

func newSessions(ctx context.Context, cfg Config) *scs.SessionManager {
	m := scs.New()
	// The store's own clean-up goroutine races with stopping it (pgxstore sets its stop channel
	// inside that goroutine), so expired rows are deleted here instead.
	m.Store = pgxstore.NewWithCleanupInterval(cfg.Pool, 0)
	go deleteExpiredSessions(ctx, cfg.Pool, cfg.Logger)
	m.Lifetime, m.IdleTimeout = cfg.SessionLifetime, cfg.SessionIdle
	if m.Lifetime <= 0 {
		m.Lifetime = DefaultSessionLifetime
	}
	if m.IdleTimeout <= 0 {
		m.IdleTimeout = DefaultSessionIdle
	}
	m.Cookie.Name = cookieName
	m.Cookie.Path = Prefix
	m.Cookie.HttpOnly = true
	m.Cookie.Secure = !cfg.InsecureCookie
	// Lax, not Strict: the identity provider's redirect back to the console is a cross-site
	// navigation, and must carry the cookie that holds the sign-in's state.
	m.Cookie.SameSite = http.SameSiteLaxMode
	m.Cookie.Persist = false // gone when the browser closes
	return m
}

// sessionSweep is how often expired sessions' rows are deleted.
const sessionSweep = 5 * time.Minute

// deleteExpiredSessions deletes expired sessions' rows every sessionSweep until ctx ends.
func deleteExpiredSessions(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	t := time.NewTicker(sessionSweep)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := pool.Exec(ctx, `DELETE FROM sessions WHERE expiry < now()`); err != nil && ctx.Err() == nil {
				log.Warn("console: expired sessions could not be deleted", "err", err)
			}
		}
	}
}

// routes registers every page. Pages for signed-in staff go through signedIn, which also names
// the roles each serves; the API still decides every read and action.
func (c *Console) routes(e *echo.Echo) {
	g := e.Group(Prefix, echo.WrapMiddleware(c.sessions.LoadAndSave), c.securityHeaders, c.checkCSRF)
	g.GET("/static/*", echo.WrapHandler(http.StripPrefix(Prefix, http.FileServerFS(staticFiles))))
	g.GET("", c.home)
	g.GET("/", c.home)
	g.GET("/sign-in", c.signInPage)
	g.POST("/sign-in/dev", c.devSignIn)
	g.GET("/oidc/start", c.oidcStart)
	g.GET("/oidc/callback", c.oidcCallback)
	g.POST("/sign-out", c.signOut)
	g.POST("/language", c.setLanguage)

	desk := []domain.Role{domain.RoleFrontDesk, domain.RoleAdmin}
	anyStaff := []domain.Role{domain.RoleFrontDesk, domain.RoleFinance, domain.RoleAdmin}
	money := []domain.Role{domain.RoleFinance, domain.RoleAdmin}
	page := func(method, path string, h handler, roles []domain.Role) {
		g.Add(method, path, c.signedIn(h, roles))
	}
	c.deskRoutes(page, desk, anyStaff)
	c.financeRoutes(page, money)
	c.cashUpRoutes(page, anyStaff)
	c.adminRoutes(page, []domain.Role{domain.RoleAdmin})
	g.RouteNotFound("/*", func(ec echo.Context) error { return c.notFound(ec) })
}

// securityHeaders keeps the console's pages out of frames and caches, and its scripts to its own.
func (c *Console) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(ec echo.Context) error {
		h := ec.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		return next(ec)
	}
}
