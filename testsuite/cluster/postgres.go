package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgNode is one PostgreSQL server: its data directory and port, and the server while it runs.
type pgNode struct {
	Name string
	Dir  string
	Port int
	srv  *PGServer
}

func (n *pgNode) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", n.Port, db)
}

// Postgres is bookflow's database: a primary and one streaming standby, either of which may be
// the primary after a failover, and the synchronous mode kept as Patroni's non-strict
// synchronous_mode keeps it (see keepSynchronous).
type Postgres struct {
	bin, dir string
	logf     func(format string, args ...any)
	mu       sync.Mutex
	nodes    [2]*pgNode
	primary  int // index into nodes
	// degradeAfter is how long the primary may wait for a missing standby before it commits
	// asynchronously; aloneSince is when it last had none (zero while one streams).
	degradeAfter time.Duration
	aloneSince   time.Time
	passes       sync.Mutex // one keepSynchronous pass at a time
	// synchronous: at the keeper's last look the primary committed synchronously to a standby
	// (the standby had every answered commit); diedSynchronous, whether it did when it was killed.
	synchronous, diedSynchronous bool
	degraded, restored           int
}

// Stats counts the times the primary was left without a synchronous standby and switched to
// asynchronous commits, and the times a standby became synchronous again.
func (pg *Postgres) Stats() (degraded, restored int) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	return pg.degraded, pg.restored
}

// ErrStandbyBehind: the standby may lack commits the primary answered (it was not synchronous
// when the primary was lost), so it is not promoted.
var ErrStandbyBehind = errors.New("the standby was not synchronous when the primary was lost: promoting it could lose answered commits; start the primary again instead")

// postgresDir is where the servers' data goes: under dir when the postgres user can reach it
// (PostgreSQL runs as postgres when this process is root), else in a temporary directory.
func postgresDir(dir string) (string, error) {
	pgDir := filepath.Join(dir, "postgres")
	reachable := func() bool { return exec.Command("runuser", "-u", "postgres", "--", "test", "-x", dir).Run() == nil }
	if os.Geteuid() == 0 && !reachable() {
		_ = os.Chmod(dir, 0o755) // the cluster's own directory (os.MkdirTemp makes it 0700)
	}
	if os.Geteuid() == 0 && !reachable() { // a parent is closed to postgres
		var err error
		if pgDir, err = os.MkdirTemp("", "bookflow-cluster-pg-"); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(pgDir, 0o755); err != nil {
		return "", err
	}
	return pgDir, GiveToPostgres(pgDir)
}

func (pg *Postgres) run(name string, args ...string) error {
	cmd := PGCommand(filepath.Join(pg.bin, name), args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %v: %w: %s", name, args, err, out)
	}
	return nil
}

// initServer creates a server's data directory with settings for a primary that a standby can
// copy (the copy inherits them).
func (pg *Postgres) initServer(n *pgNode) error {
	if err := pg.run("initdb", "-D", n.Dir, "-U", "postgres", "--auth=trust", "-E", "UTF8"); err != nil {
		return err
	}
	conf := "listen_addresses = '127.0.0.1'\nmax_connections = 300\nwal_level = replica\nhot_standby = on\n" +
		"wal_keep_size = '512MB'\nsynchronous_commit = on\nshared_buffers = '128MB'\n"
	f, err := os.OpenFile(filepath.Join(n.Dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(conf)
	return err
}

// start starts a server as this process's child (PGServer: it dies with the harness).
func (pg *Postgres) start(n *pgNode) error {
	srv, err := StartPGServer(pg.bin, n.Dir, n.Dir+".log", 60*time.Second, "-p", strconv.Itoa(n.Port), "-k", pg.dir)
	if err != nil {
		return err
	}
	n.srv = srv
	return nil
}

// crash stops a server at once, without a checkpoint (SIGQUIT, what pg_ctl -m immediate sends):
// what a killed machine leaves. One already down is left as it is.
func (pg *Postgres) crash(n *pgNode) error {
	n.srv.Stop(syscall.SIGQUIT)
	return nil
}

// copyFrom makes n a fresh streaming standby of from (pg_basebackup -R) and starts it.
func (pg *Postgres) copyFrom(from, n *pgNode) error {
	if err := os.RemoveAll(n.Dir); err != nil {
		return err
	}
	if err := pg.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(from.Port), "-U", "postgres", "-D", n.Dir,
		"-R", "-X", "stream", "-c", "fast"); err != nil {
		return err
	}
	return pg.start(n)
}

// startPostgres initialises the primary, creates database db on it, copies it into the standby
// and starts both; keepSynchronous then makes the standby synchronous.
func startPostgres(ctx context.Context, dir string, ports [2]int, db string, degradeAfter time.Duration,
	logf func(string, ...any)) (*Postgres, error) {
	bin, err := PGBin()
	if err != nil {
		return nil, err
	}
	pg := &Postgres{bin: bin, dir: dir, logf: logf, degradeAfter: degradeAfter}
	for i := range pg.nodes {
		pg.nodes[i] = &pgNode{Name: fmt.Sprintf("postgres-%d", i+1), Dir: filepath.Join(dir, fmt.Sprintf("pg-%d", i+1)), Port: ports[i]}
	}
	p := pg.nodes[0]
	if err := pg.initServer(p); err != nil {
		return pg, err
	}
	if err := pg.start(p); err != nil {
		return pg, err
	}
	conn, err := pgx.Connect(ctx, p.url("postgres"))
	if err != nil {
		return pg, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return pg, err
	}
	if err := pg.copyFrom(p, pg.nodes[1]); err != nil {
		return pg, err
	}
	return pg, pg.waitSynchronous(ctx, 30*time.Second)
}

// URL is a connection string naming both servers: with target_session_attrs=read-write pgx
// connects to whichever is the primary, and finds the new one after a failover.
func (pg *Postgres) URL(db, attrs string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/%s?sslmode=disable&target_session_attrs=%s",
		pg.nodes[0].Port, pg.nodes[1].Port, db, attrs)
}

// Nodes returns the primary and the standby, in that order.
func (pg *Postgres) Nodes() (primary, standby *pgNode) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	return pg.nodes[pg.primary], pg.nodes[1-pg.primary]
}

// KillPrimary crashes the primary, noting whether its standby was synchronous then.
func (pg *Postgres) KillPrimary() error {
	pg.passes.Lock() // no keeper pass changes the synchronous state meanwhile
	defer pg.passes.Unlock()
	p, _ := pg.Nodes()
	pg.mu.Lock()
	pg.diedSynchronous = pg.synchronous
	pg.mu.Unlock()
	return pg.crash(p)
}

// Promote makes the standby the primary (pg_ctl promote) and returns once it takes writes. As
// Patroni's non-strict synchronous mode, it refuses (ErrStandbyBehind) when the standby was not
// synchronous when the primary was killed: commits answered while the primary was alone exist on
// it only. The new primary commits on its own until RebuildStandby gives it a standby again.
func (pg *Postgres) Promote(ctx context.Context) error {
	pg.passes.Lock()
	defer pg.passes.Unlock()
	pg.mu.Lock()
	behind := !pg.diedSynchronous
	pg.mu.Unlock()
	if behind {
		return ErrStandbyBehind
	}
	_, s := pg.Nodes()
	if err := pg.run("pg_ctl", "-D", s.Dir, "-w", "promote"); err != nil {
		return err
	}
	pg.mu.Lock()
	pg.primary = 1 - pg.primary
	pg.synchronous, pg.diedSynchronous, pg.aloneSince = false, false, time.Time{}
	pg.mu.Unlock()
	pg.logf("%s promoted: it is the primary", s.Name)
	return nil
}

// RebuildStandby makes the server that is not the primary a fresh standby of the primary (the
// old primary after a failover: its data may hold what the new primary never received) and waits
// until it is synchronous again.
func (pg *Postgres) RebuildStandby(ctx context.Context) error {
	p, s := pg.Nodes()
	_ = pg.crash(s) // it may be down already
	if err := pg.copyFrom(p, s); err != nil {
		return err
	}
	pg.logf("%s copied from %s: it is the standby", s.Name, p.Name)
	return pg.waitSynchronous(ctx, 60*time.Second)
}

// StopStandby stops the standby while the primary runs; StartStandby starts it again.
func (pg *Postgres) StopStandby() error {
	_, s := pg.Nodes()
	return pg.crash(s)
}

// StartStandby starts the standby again and waits until it is synchronous.
func (pg *Postgres) StartStandby(ctx context.Context) error {
	_, s := pg.Nodes()
	if err := pg.start(s); err != nil {
		return err
	}
	return pg.waitSynchronous(ctx, 60*time.Second)
}

// waitSynchronous waits until the primary commits synchronously to a streaming standby.
func (pg *Postgres) waitSynchronous(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		sync, err := pg.keepSynchronous(ctx)
		if err == nil && sync {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the standby did not become synchronous within %s (last error: %v)", limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// standbyName is the name a standby copied by pg_basebackup -R streams under (its walreceiver's
// default application_name); pg_basebackup's own stream, named pg_basebackup, never counts.
const standbyName = "walreceiver"

// keepSynchronous is one pass of what Patroni's non-strict synchronous_mode does: while a standby
// streams, the primary commits synchronously (synchronous_standby_names names it), so an answered
// commit is on both servers; when no standby has streamed for degradeAfter, it commits
// asynchronously, so commits do not hang for ever while the primary is alone. What commits
// then is on the primary only until a standby catches up. It reports whether the primary is
// synchronous with a streaming standby now.
func (pg *Postgres) keepSynchronous(ctx context.Context) (bool, error) {
	pg.passes.Lock()
	defer pg.passes.Unlock()
	p, _ := pg.Nodes()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.url("postgres"))
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	// sync_state is the walsender's own view, taken after it has reloaded the setting: 'sync'
	// means a commit now waits for this standby.
	var streaming, sync bool
	var names string
	if err := conn.QueryRow(ctx, `SELECT
		EXISTS (SELECT 1 FROM pg_stat_replication WHERE state = 'streaming' AND application_name = $1),
		EXISTS (SELECT 1 FROM pg_stat_replication WHERE state = 'streaming' AND application_name = $1 AND sync_state = 'sync'),
		current_setting('synchronous_standby_names')`, standbyName).Scan(&streaming, &sync, &names); err != nil {
		return false, err
	}
	pg.setSynchronous(sync && names != "")
	switch {
	case streaming && names == "":
		if err := setStandbyNames(ctx, conn, standbyName); err != nil {
			return false, err
		}
		pg.mu.Lock()
		pg.restored++
		pg.mu.Unlock()
		pg.aloneFor(false)
		pg.logf("%s: a standby streams: commits are synchronous", p.Name)
		return false, nil // synchronous once its walsender says so
	case !streaming && names != "":
		alone := pg.aloneFor(true)
		if alone < pg.degradeAfter {
			return false, nil
		}
		if err := setStandbyNames(ctx, conn, ""); err != nil {
			return false, err
		}
		pg.mu.Lock()
		pg.degraded++
		pg.mu.Unlock()
		pg.logf("%s: no standby for %s: commits are asynchronous until one streams", p.Name, alone.Round(time.Millisecond))
		return false, nil
	}
	pg.aloneFor(!streaming)
	return sync && names != "", nil
}

func (pg *Postgres) setSynchronous(sync bool) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	pg.synchronous = sync
}

// aloneFor tracks how long the primary has had no streaming standby; alone false resets it.
func (pg *Postgres) aloneFor(alone bool) time.Duration {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if !alone {
		pg.aloneSince = time.Time{}
		return 0
	}
	if pg.aloneSince.IsZero() {
		pg.aloneSince = time.Now()
	}
	return time.Since(pg.aloneSince)
}

func setStandbyNames(ctx context.Context, conn *pgx.Conn, names string) error {
	if _, err := conn.Exec(ctx, "ALTER SYSTEM SET synchronous_standby_names = "+quote(names)); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, "SELECT pg_reload_conf()")
	return err
}

func quote(s string) string { return "'" + s + "'" }

// keep runs keepSynchronous every 250 ms until ctx ends.
func (pg *Postgres) keep(ctx context.Context) {
	for ctx.Err() == nil {
		_, _ = pg.keepSynchronous(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// stop stops both servers (SIGINT: pg_ctl's fast shutdown).
func (pg *Postgres) stop() {
	for _, n := range pg.nodes {
		if n != nil {
			n.srv.Stop(syscall.SIGINT)
		}
	}
}
