package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAFailedStartLeavesNoPostgreSQLRunning: startPostgres returns a nil
// *Postgres on every error after the primary has started (CREATE DATABASE, pg_basebackup, the
// standby's start), so Start's clean-up (c.Stop: c.Postgres is nil) never stops it; pg_ctl's
// servers are daemons (setsid), which Pdeathsig does not reach either, so it runs on after the
// suite. startTemporal has the same shape (its PostgreSQL and its five services after
// waitHealthy or the schema tool fails). Here the failure is CREATE DATABASE of a database that
// exists; one server, a few seconds.
func TestAFailedStartLeavesNoPostgreSQLRunning(t *testing.T) {
	if _, err := PGBin(); err != nil {
		t.Skip(err)
	}
	pgDir, err := postgresDir(t.TempDir())
	require.NoError(t, err)
	ports, err := FreePorts(2)
	require.NoError(t, err)
	t.Cleanup(func() {
		pg := &Postgres{dir: pgDir}
		pg.bin, _ = PGBin()
		_ = pg.run("pg_ctl", "-D", filepath.Join(pgDir, "pg-1"), "-m", "immediate", "-w", "stop")
		_ = os.RemoveAll(pgDir)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	pg, err := startPostgres(ctx, pgDir, [2]int{ports[0], ports[1]}, "postgres", time.Second, func(string, ...any) {})
	require.Error(t, err, "CREATE DATABASE postgres")
	if pg != nil {
		pg.stop() // what Start's clean-up would do with it
	}
	conn, dialErr := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0]), time.Second)
	if dialErr == nil {
		_ = conn.Close()
	}
	require.Error(t, dialErr, "the primary still runs on %d after startPostgres failed (returned %v)", ports[0], pg)
}
