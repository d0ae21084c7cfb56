package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/testsuite/cluster"
)

// Replicated is a private PostgreSQL primary with one streaming standby (pg_basebackup), each
// on its own loopback port, for tests of reads from a standby. Both stop when the test ends.
type Replicated struct {
	PrimaryURL, StandbyURL string
	Primary, Standby       *pgxpool.Pool
	PrimaryDir, StandbyDir string // the data directories
}

// ReplicatedOption changes how StartReplicated sets up the pair.
type ReplicatedOption func(*replicatedConfig)

type replicatedConfig struct {
	synchronous bool
	fsync       bool
}

// Synchronous makes the standby synchronous (synchronous_standby_names = '*'): every commit on
// the primary waits until the standby has flushed it, as in a cluster that loses no commit.
func Synchronous() ReplicatedOption { return func(c *replicatedConfig) { c.synchronous = true } }

// Fsync keeps fsync on in both servers (the default here is off, for speed), so a commit, and
// a synchronous standby's flush, cost what they cost on this machine's disk.
func Fsync() ReplicatedOption { return func(c *replicatedConfig) { c.fsync = true } }

// StartReplicated initialises a primary (initdb), migrates bookflow's schema onto it, copies it
// into a standby and starts both. PostgreSQL never runs as root: as root, it runs as postgres.
func StartReplicated(t testing.TB, opts ...ReplicatedOption) *Replicated {
	t.Helper()
	var cfg replicatedConfig
	for _, o := range opts {
		o(&cfg)
	}
	fsync := "off"
	if cfg.fsync {
		fsync = "on"
	}
	bin, err := cluster.PGBin()
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "bookflow-replicated-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, cluster.GiveToPostgres(dir))
	run := func(name string, args ...string) {
		t.Helper()
		out, err := cluster.PGCommand(filepath.Join(bin, name), args...).CombinedOutput()
		require.NoError(t, err, "%s %v: %s", name, args, out)
	}
	primary, standby := filepath.Join(dir, "primary"), filepath.Join(dir, "standby")
	pPort, sPort := freePort(t), freePort(t)
	run("initdb", "-D", primary, "-U", "postgres", "--auth=trust", "-E", "UTF8")
	// Each server is this process's child and dies with it, even when the test is killed.
	start := func(data string, port int) {
		srv, err := cluster.StartPGServer(bin, data, data+".log", time.Minute, "-p", strconv.Itoa(port), "-k", dir,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync="+fsync)
		require.NoError(t, err)
		t.Cleanup(func() { srv.Stop(syscall.SIGQUIT) })
	}
	start(primary, pPort)
	r := &Replicated{
		PrimaryDir: primary, StandbyDir: standby,
		PrimaryURL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", pPort),
		StandbyURL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", sPort),
	}
	ctx := context.Background()
	r.Primary = connect(t, r.PrimaryURL)
	require.NoError(t, db.Migrate(ctx, r.Primary))
	run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(pPort), "-U", "postgres", "-D", standby, "-R",
		"-X", "stream", "-c", "fast")
	start(standby, sPort)
	r.Standby = connect(t, r.StandbyURL)
	if cfg.synchronous {
		r.makeSynchronous(t)
	}
	return r
}

// ServerCPU is the CPU time the primary's and the standby's processes (each server's postmaster
// and its children) have used so far, from /proc; zero where it cannot be read.
func (r *Replicated) ServerCPU() time.Duration {
	var ticks int64
	for _, dir := range []string{r.PrimaryDir, r.StandbyDir} {
		pidFile, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
		if err != nil {
			continue
		}
		postmaster, _ := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
		procs, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, f := range procs {
			stat, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			// The fields after the command's closing parenthesis: state, ppid, ... utime (12th), stime.
			fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
			if len(fields) < 13 {
				continue
			}
			pid, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(filepath.Dir(f)), "/"))
			if ppid, _ := strconv.Atoi(fields[1]); pid != postmaster && ppid != postmaster {
				continue
			}
			utime, _ := strconv.ParseInt(fields[11], 10, 64)
			stime, _ := strconv.ParseInt(fields[12], 10, 64)
			ticks += utime + stime
		}
	}
	return time.Duration(ticks) * (time.Second / 100) // USER_HZ is 100 on Linux
}

// makeSynchronous names every standby synchronous on the primary and waits until the standby
// is one.
func (r *Replicated) makeSynchronous(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	_, err := r.Primary.Exec(ctx, `ALTER SYSTEM SET synchronous_standby_names = '*'`)
	require.NoError(t, err)
	_, err = r.Primary.Exec(ctx, `SELECT pg_reload_conf()`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var sync bool
		return r.Primary.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync')`).Scan(&sync) == nil && sync
	}, 20*time.Second, 20*time.Millisecond, "the standby becomes synchronous")
}

func connect(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := db.Connect(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// WaitReplayed waits until the standby has replayed everything the primary wrote so far.
func (r *Replicated) WaitReplayed(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	var lsn string
	require.NoError(t, r.Primary.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn))
	require.Eventually(t, func() bool {
		var done bool
		return r.Standby.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn`, lsn).Scan(&done) == nil && done
	}, 20*time.Second, 20*time.Millisecond, "the standby replays up to %s", lsn)
}
