package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// The HTTP conventions browsers and integrators expect of every answer besides its request id
// (request_ids.go): CORS for browser checkouts on other origins, and a Location on every 201.

// CORS is what a browser on another origin may do with the API (CORS_ALLOWED_ORIGINS).
// The API authenticates with bearer tokens, never cookies, so it never allows credentials:
// a wildcard origin cannot carry a signed-in browser's cookies to it.
type CORS struct {
	// AllowedOrigins are the origins (scheme://host[:port]) whose pages may call the API; "*"
	// allows any. Empty: none, and no CORS header is sent.
	AllowedOrigins []string
}

// ParseCORSOrigins reads a comma-separated list of origins; "*" stands alone.
func ParseCORSOrigins(list string) ([]string, error) {
	var origins []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
				(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
				return nil, fmt.Errorf("%q is not an origin: scheme://host[:port], nothing after it", o)
			}
			o = u.Scheme + "://" + strings.ToLower(u.Host)
		}
		origins = append(origins, o)
	}
	if slices.Contains(origins, "*") && len(origins) > 1 {
		return nil, fmt.Errorf("\"*\" allows every origin: list no others beside it")
	}
	return origins, nil
}

// corsAllowedHeaders are the request headers a page may send: the token, the body's type, the
// hold's key, the namespace the Temporal UI names to the codec endpoint, its own request id and
// trace context.
const corsAllowedHeaders = "Authorization, Content-Type, Idempotency-Key, X-Namespace, X-Request-Id, traceparent, tracestate"

// corsExposedHeaders are the answer's headers a page may read.
const corsExposedHeaders = "Location, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, WWW-Authenticate"

// cors answers preflights and marks the answers of /api/v1 that a browser on an allowed origin
// may read. A preflight from another origin is refused with 403 and a reason; its other requests
// are answered as always, without the headers, so its browser keeps the answer from the page.
func (s *Server) cors() echo.MiddlewareFunc {
	origins := s.cfg.CORS.AllowedOrigins
	anyOrigin := slices.Contains(origins, "*")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			origin := r.Header.Get("Origin")
			if origin == "" || !strings.HasPrefix(r.URL.Path, "/api/v1/") {
				return next(c)
			}
			h := c.Response().Header()
			h.Add("Vary", "Origin")
			preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
			if !anyOrigin && !slices.Contains(origins, strings.ToLower(origin)) {
				if preflight {
					return newError(http.StatusForbidden, "cors_origin_refused",
						"pages from %s may not call this API (CORS_ALLOWED_ORIGINS)", origin)
				}
				return next(c)
			}
			if anyOrigin {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
			}
			if !preflight {
				h.Set("Access-Control-Expose-Headers", corsExposedHeaders)
				return next(c)
			}
			h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE")
			h.Set("Access-Control-Allow-Headers", corsAllowedHeaders)
			h.Set("Access-Control-Max-Age", "600")
			return c.NoContent(http.StatusNoContent)
		}
	}
}

// created answers 201 with the body and the Location of what was created.
func created(c echo.Context, location string, body any) error {
	c.Response().Header().Set(echo.HeaderLocation, location)
	return c.JSON(http.StatusCreated, body)
}

// bookingLocation is where the caller of a route that made booking id reads it: a customer's,
// an agent's or a staff member's own route.
func bookingLocation(c echo.Context, id string) string {
	switch p := c.Path(); {
	case strings.HasPrefix(p, "/api/v1/agent/"):
		return "/api/v1/agent/bookings/" + url.PathEscape(id)
	case strings.HasPrefix(p, "/api/v1/staff/"):
		return "/api/v1/staff/bookings/" + url.PathEscape(id)
	}
	return "/api/v1/bookings/" + url.PathEscape(id)
}
