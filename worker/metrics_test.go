package worker_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/telemetry"
	"github.com/bookflow/bookflow/testsuite"
	"github.com/bookflow/bookflow/worker"
)

// A database that does not answer leaves the state's series out of a scrape; the rest of
// /metrics is still served, so one slow dependency does not look like bookflow being down.
func TestAStateReadThatFailsLeavesTheRestOfTheScrape(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	state := &worker.StateMetrics{Store: db.NewStore(pool, time.Second)}
	require.NoError(t, telemetry.Registry.Register(state))
	t.Cleanup(func() { telemetry.Registry.Unregister(state) })

	srv := httptest.NewServer(telemetry.Handler())
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), "go_goroutines")
	assert.NotContains(t, string(body), "bookflow_outbox_backlog ")
}

// A worker without a cache leaves the outbox's age out: its rows wait only for their retention
// (cache.UnappliedKept), and a fleet without Redis must not look like a relay behind.
func TestOnlyAWorkerWithACacheReportsTheOutboxAge(t *testing.T) {
	t.Parallel()
	d := testsuite.NewDatabase(t)
	names := func(cached bool) map[string]bool {
		reg := prometheus.NewRegistry()
		reg.MustRegister(&worker.StateMetrics{Store: d.Store, Cached: cached})
		families, err := reg.Gather()
		require.NoError(t, err)
		got := map[string]bool{}
		for _, f := range families {
			got[f.GetName()] = true
		}
		return got
	}
	with, without := names(true), names(false)
	assert.True(t, with["bookflow_outbox_oldest_age_seconds"])
	assert.False(t, without["bookflow_outbox_oldest_age_seconds"])
	assert.True(t, without["bookflow_outbox_backlog"], "the backlog is reported either way")
}
