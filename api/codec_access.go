package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/bookflow/bookflow/domain"
)

// codecPayloadsKey is where the codec handler notes how many payloads a call carried, for its
// access log line.
const codecPayloadsKey = "bookflow.codecPayloads"

// codecNamespaceMax bounds the X-Namespace a log line repeats (Temporal's names are shorter).
const codecNamespaceMax = 255

// DefaultCodecDecodePerMinute is CODEC_DECODE_RATE_PER_USER's default: the Temporal UI calls
// /decode once for each event's payloads it shows, so a booking's history page is tens of calls;
// 600 a minute lets a person page through histories, and holds a script that opens every
// workflow to 10 calls a second.
const DefaultCodecDecodePerMinute = 600

// codecDecodeAccess guards /codec/decode, which opens sealed payloads: an allowance per user
// (CODEC_DECODE_RATE_PER_USER, 0: none) and a log line per call naming who opened how many
// payloads, of which namespace, with what outcome, and the request id (never a payload).
func (s *Server) codecDecodeAccess() []echo.MiddlewareFunc {
	mw := []echo.MiddlewareFunc{s.codecAccessLog}
	if n := s.cfg.CodecDecodePerMinute; n > 0 {
		mw = append(mw, perMinuteLimit("user", n, s.newRateCounter("codec", n),
			func(c echo.Context) string { return principal(c).Subject }, func(echo.Context) bool { return false },
			func() error {
				return newError(http.StatusTooManyRequests, "rate_limited",
					"too many payload decodes by this user: at most %d calls a minute", n)
			}))
	}
	return mw
}

// codecAccessLog writes the access log line of a codec call (after authentication: it names
// the caller).
func (s *Server) codecAccessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		p := principal(c)
		who, role := p.Subject, domain.RoleFinance
		if !p.Has(domain.RoleFinance) {
			role = domain.RoleAdmin
		}
		if who == domain.BreakGlassSubject {
			who = "break-glass admin token"
		}
		outcome, status := "decoded", c.Response().Status
		if err != nil {
			e := toError(err)
			outcome, status = e.Code, e.Status
		}
		attrs := []any{"subject", who, "role", string(role), "outcome", outcome, "status", status}
		if n, ok := c.Get(codecPayloadsKey).(int); ok {
			attrs = append(attrs, "payloads", n)
		}
		if ns := c.Request().Header.Get("X-Namespace"); ns != "" {
			attrs = append(attrs, "namespace", ns[:min(len(ns), codecNamespaceMax)])
		}
		s.cfg.Logger.InfoContext(c.Request().Context(), "codec decode", attrs...)
		return err
	}
}
