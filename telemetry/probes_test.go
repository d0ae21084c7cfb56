package telemetry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTheMetricsListenerAnswersLivenessAndReadiness: /healthz answers while the process runs;
// /readyz follows the readiness it is given (503 without its cause), and is not served without one.
func TestTheMetricsListenerAnswersLivenessAndReadiness(t *testing.T) {
	var notReady error
	srv := MetricsServer("", &Readiness{Checks: []ReadinessCheck{
		{Name: "database", Check: func(context.Context) error { return notReady }}}})
	get := func(h http.Handler, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	assert.Equal(t, http.StatusOK, get(srv.Handler, "/healthz").Code)
	assert.Equal(t, http.StatusOK, get(srv.Handler, "/readyz").Code)
	notReady = errors.New("dial tcp 10.0.0.5:5432: connection refused")
	rec := get(srv.Handler, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.JSONEq(t, `{"database": "unavailable"}`, rec.Body.String())
	assert.NotContains(t, rec.Body.String(), "10.0.0.5", "the cause goes to the log, not to whoever asks")
	assert.Equal(t, http.StatusOK, get(srv.Handler, "/healthz").Code, "alive while not ready")

	assert.Equal(t, http.StatusNotFound, get(MetricsServer("", nil).Handler, "/readyz").Code)
}
