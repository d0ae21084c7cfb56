package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/telemetry"
)

type pingFunc func(context.Context) error

func (p pingFunc) Ping(ctx context.Context) error { return p(ctx) }

// TestAWorkerIsReadyOnlyWhilePollingWithItsStoresUp: a worker's /readyz (on its metrics
// listener) says ready only once it polls its task queue, and only while PostgreSQL and Temporal
// answer; a 503 names what is not, in the API's readiness shape, never the cause.
func TestAWorkerIsReadyOnlyWhilePollingWithItsStoresUp(t *testing.T) {
	var polling atomic.Bool
	var dbDown, temporalDown error
	srv := telemetry.MetricsServer("", workerReadiness(&polling,
		telemetry.DatabaseReady(pingFunc(func(context.Context) error { return dbDown })),
		telemetry.ReadinessCheck{Name: "temporal", Check: func(context.Context) error { return temporalDown }}))
	readyz := func() (int, map[string]string) {
		rec := httptest.NewRecorder()
		srv.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		var answer map[string]string
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), rec.Body.String())
		assert.NotContains(t, rec.Body.String(), "10.0.0.5", "the cause goes to the log")
		return rec.Code, answer
	}
	answers := func(polling, database, temporal string) map[string]string {
		return map[string]string{"polling": polling, "database": database, "temporal": temporal}
	}
	code, answer := readyz()
	assert.Equal(t, http.StatusServiceUnavailable, code, "before the worker starts")
	assert.Equal(t, answers("unavailable", "ok", "ok"), answer)
	polling.Store(true)
	code, answer = readyz()
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, answers("ok", "ok", "ok"), answer)
	dbDown = errors.New("dial tcp 10.0.0.5:5432: connection refused")
	code, answer = readyz()
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, answers("ok", "unavailable", "ok"), answer)
	dbDown, temporalDown = nil, errors.New("dial tcp 10.0.0.5:7233: unavailable")
	code, answer = readyz()
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, answers("ok", "ok", "unavailable"), answer)
	temporalDown = nil
	polling.Store(false)
	code, _ = readyz()
	assert.Equal(t, http.StatusServiceUnavailable, code, "stopping")
}
