package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/bookflow/bookflow/testsuite"
)

// TestAStandbyDownAtStartDoesNotStopTheAPI (review3): the standby (DATABASE_READ_URL) is only
// for reads that may be stale, and a standby that cannot say its lag is simply not used. But
// connect opens it with db.Connect, which pings it and fails: with the standby down (being
// rebuilt, its host rebooting) `bookflow serve` will not start or restart at all, though the
// primary, Temporal and the cache are all up.
func TestAStandbyDownAtStartDoesNotStopTheAPI(t *testing.T) {
	path, err := testsuite.TemporalCLI()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := sdktestsuite.StartDevServer(ctx, sdktestsuite.DevServerOptions{ExistingPath: path, LogLevel: "error"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	cfg := Config{DatabaseURL: testsuite.NewDatabase(t).URL, TemporalAddress: srv.FrontendHostPort(),
		TemporalNamespace: "default", DatabaseReadURL: "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable"}
	d, stop, err := connect(ctx, cfg)
	if assert.NoError(t, err, "the primary is up; a standby that is down should only go unused") {
		assert.NotNil(t, d.store)
		stop()
	}
}
