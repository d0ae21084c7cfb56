package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"regexp"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// RequestIDHeader names a request: the caller's, when it sends a plausible one, or one the API
// makes. Every answer carries it back, and every log line the request causes and its span name
// it.
const RequestIDHeader = "X-Request-Id"

// requestIDPattern is what a caller's request id may be: up to 128 letters, digits and ._:-,
// enough for a UUID or a trace id, and nothing that could forge a log line.
var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// requestIDContext carries the request id in the request's context, for log lines written with
// it (requestIDLogs).
type requestIDContext struct{}

func requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(RequestIDHeader)
		if !requestIDPattern.MatchString(id) {
			id = newRequestID()
		}
		c.Response().Header().Set(RequestIDHeader, id)
		r := c.Request()
		c.SetRequest(r.WithContext(context.WithValue(r.Context(), requestIDContext{}, id)))
		trace.SpanFromContext(r.Context()).SetAttributes(
			attribute.StringSlice("http.request.header.x-request-id", []string{id}))
		return next(c)
	}
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// requestIDLogs adds the request id to every line logged with a request's context
// (Logger.InfoContext and the like), so each line a request causes names it.
type requestIDLogs struct{ slog.Handler }

func (h requestIDLogs) Handle(ctx context.Context, r slog.Record) error {
	if id, ok := ctx.Value(requestIDContext{}).(string); ok {
		r.AddAttrs(slog.String("requestId", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDLogs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDLogs{h.Handler.WithAttrs(attrs)}
}

func (h requestIDLogs) WithGroup(name string) slog.Handler {
	return requestIDLogs{h.Handler.WithGroup(name)}
}
