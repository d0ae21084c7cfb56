package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/telemetry"
)

// Without tracing, a request's log line still names the caller's trace: its traceparent is read.
func TestCallerTraceIsReadWithoutTracing(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	_, err := telemetry.StartTracing(t.Context(), "test") // the propagator only
	require.NoError(t, err)
	e := echo.New()
	e.Use(callerTrace)
	var seen string
	e.GET("/x", func(c echo.Context) error {
		seen = telemetry.TraceID(c.Request().Context())
		return c.NoContent(http.StatusOK)
	})
	req := httptest.NewRequest(http.MethodGet, "/x", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	e.ServeHTTP(httptest.NewRecorder(), req)
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", seen)

	seen = "unset"
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	assert.Empty(t, seen, "no traceparent, no trace id")
}
