// Package cluster runs bookflow as a cluster on one machine, on loopback, with the real engines:
// a PostgreSQL primary with a synchronous streaming standby, Redis with a replica and three
// Sentinels, the Temporal server's services as processes of their own on a PostgreSQL of its
// own, several bookflow worker and API processes, and HAProxy in front of the APIs. scripts/cluster
// runs it for people (cmd/bookflow-cluster); the cluster chaos suite and the short cluster test
// break it on purpose.
package cluster

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// Options configure a cluster.
type Options struct {
	Dir             string // where data and logs go (empty: a new temporary directory, removed by Stop)
	Bookflow        string // the bookflow binary
	TemporalServer  string // the Temporal server binary (scripts/lib.sh ensure_temporal_server)
	TemporalSQLTool string // its schema tool
	TemporalUI      string // the Temporal web UI's server (scripts/lib.sh ensure_temporal_ui); empty: no UI
	UIAddr          string // where the UI listens (empty: a free loopback port)
	APIs, Workers   int    // bookflow serve and worker processes (default 2 each)
	// APIAddr is where the load balancer listens, and TemporalAddr the Temporal frontend
	// (empty: free loopback ports).
	APIAddr, TemporalAddr string
	// Env is added to every bookflow process's environment: secrets, the payment provider,
	// HOLD_TTL, ...
	Env []string
	// DegradeAfter is how long a primary without a standby waits before it commits
	// asynchronously (default 2 s).
	DegradeAfter time.Duration
	Events       io.Writer // what the cluster does (promotions, synchronous mode), one line each
}

// Cluster is a running cluster.
type Cluster struct {
	o               Options
	dir             string
	ownDir          bool
	pgDir           string // the PostgreSQL servers' data: under dir, or a directory of its own
	logf            *os.File
	Postgres        *Postgres
	Redis           *Redis
	Temporal        *Temporal
	APIs, Workers   []*Process
	Balancer        *Process
	UI              *Process // the Temporal web UI, when Options.TemporalUI names it
	DatabaseURL     string   // DATABASE_URL: both servers, target_session_attrs=read-write
	DatabaseReadURL string   // DATABASE_READ_URL: both servers, the standby preferred
	APIURL          string   // the load balancer
	stopKeeper      context.CancelFunc
	keeperDone      chan struct{}
}

// Start starts everything and returns once every API answers /readyz through the load balancer.
func Start(ctx context.Context, o Options) (_ *Cluster, err error) {
	if o.APIs == 0 {
		o.APIs = 2
	}
	if o.Workers == 0 {
		o.Workers = 2
	}
	if o.DegradeAfter == 0 {
		o.DegradeAfter = 2 * time.Second
	}
	if o.Events == nil {
		o.Events = io.Discard
	}
	c := &Cluster{o: o, dir: o.Dir}
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "bookflow-cluster-"); err != nil {
			return nil, err
		}
		c.ownDir = true
	}
	defer func() {
		if err != nil {
			c.Stop(true)
		}
	}()
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, err
	}
	pgDir, err := postgresDir(c.dir)
	if err != nil {
		return nil, err
	}
	c.pgDir = pgDir
	if filepath.Dir(pgDir) != c.dir {
		c.event("PostgreSQL's data and logs are in %s (the postgres user cannot reach %s)", pgDir, c.dir)
	}
	if c.logf, err = os.Create(filepath.Join(c.dir, "processes.log")); err != nil {
		return nil, err
	}
	ports, err := FreePorts(25 + 2*o.APIs + o.Workers)
	if err != nil {
		return nil, err
	}
	take := func(n int) []int { p := ports[:n]; ports = ports[n:]; return p }

	c.event("starting PostgreSQL (primary and synchronous standby)")
	pgPorts := take(2)
	// Each start returns what it started even when it fails, so that Stop stops it.
	if c.Postgres, err = startPostgres(ctx, pgDir, [2]int{pgPorts[0], pgPorts[1]}, "bookflow", o.DegradeAfter, c.event); err != nil {
		return nil, err
	}
	c.DatabaseURL = c.Postgres.URL("bookflow", "read-write")
	c.DatabaseReadURL = c.Postgres.URL("bookflow", "prefer-standby")
	keeperCtx, stop := context.WithCancel(context.Background())
	c.stopKeeper, c.keeperDone = stop, make(chan struct{})
	go func() { c.Postgres.keep(keeperCtx); close(c.keeperDone) }()
	migrate := exec.CommandContext(ctx, o.Bookflow, "migrate")
	migrate.Env = append(OwnEnviron(), "DATABASE_URL="+c.DatabaseURL)
	if out, err := migrate.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bookflow migrate: %w: %s", err, out)
	}
	c.event("starting Redis (primary, replica, three Sentinels)")
	if c.Redis, err = startRedis(ctx, c.dir, take(5), c.logf); err != nil {
		return nil, err
	}
	c.event("starting the Temporal server's services")
	tports := take(12)
	if o.TemporalAddr != "" {
		if tports[1], err = portOf(o.TemporalAddr); err != nil {
			return nil, err
		}
	}
	if c.Temporal, err = startTemporal(ctx, o, c.dir, pgDir, tports, c.logf); err != nil {
		return nil, err
	}
	if o.TemporalUI != "" {
		if c.UI, err = c.Temporal.startUI(ctx, o.TemporalUI, c.dir, o.UIAddr, take(1)[0], c.logf); err != nil {
			return nil, err
		}
	}
	c.event("starting %d bookflow workers and %d APIs behind HAProxy", o.Workers, o.APIs)
	if err := c.startBookflow(ctx, take(2*o.APIs+o.Workers), take(1)[0]); err != nil {
		return nil, err
	}
	return c, nil
}

// bookflowEnv is what every bookflow process is told of the cluster.
func (c *Cluster) bookflowEnv() []string {
	return append([]string{"DATABASE_URL=" + c.DatabaseURL, "DATABASE_READ_URL=" + c.DatabaseReadURL,
		"REDIS_SENTINELS=" + c.Redis.SentinelAddrs(), "REDIS_SENTINEL_MASTER=" + SentinelMaster,
		"TEMPORAL_ADDRESS=" + c.Temporal.Frontend, "TEMPORAL_UI_URL=none"}, c.o.Env...)
}

func (c *Cluster) event(format string, args ...any) {
	fmt.Fprintf(c.o.Events, "%s  %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// Table says what runs where.
func (c *Cluster) Table() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	p, s := c.Postgres.Nodes()
	fmt.Fprintf(w, "%s\t127.0.0.1:%d\tbookflow's PostgreSQL primary\n", p.Name, p.Port)
	fmt.Fprintf(w, "%s\t127.0.0.1:%d\tits synchronous streaming standby (DATABASE_READ_URL prefers it)\n", s.Name, s.Port)
	for i, r := range c.Redis.Servers {
		role := "Redis primary"
		if i == 1 {
			role = "Redis replica"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.Name, r.Addr, role)
	}
	for _, r := range c.Redis.Sentinels {
		fmt.Fprintf(w, "%s\t%s\tSentinel (master %q, quorum 2)\n", r.Name, r.Addr, SentinelMaster)
	}
	fmt.Fprintf(w, "%s\t127.0.0.1:%d\tTemporal's persistence and visibility\n", c.Temporal.dbNode.Name, c.Temporal.dbNode.Port)
	for _, t := range c.Temporal.Services {
		fmt.Fprintf(w, "%s\t%s\tTemporal %s service\n", t.Name, t.Addr, strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(t.Name, "temporal-"), "-1"), "-2"))
	}
	for _, p := range c.Workers {
		fmt.Fprintf(w, "%s\t%s\tbookflow worker (metrics)\n", p.Name, p.Addr)
	}
	for _, p := range c.APIs {
		fmt.Fprintf(w, "%s\t%s\tbookflow API\n", p.Name, p.Addr)
	}
	if c.UI != nil {
		fmt.Fprintf(w, "%s\thttp://%s\tthe Temporal web UI\n", c.UI.Name, c.UI.Addr)
	}
	fmt.Fprintf(w, "%s\t%s\tHAProxy: the API's one address\n", c.Balancer.Name, c.Balancer.Addr)
	_ = w.Flush()
	fmt.Fprintf(&b, "DATABASE_URL=%s\nDATABASE_READ_URL=%s\nREDIS_SENTINELS=%s REDIS_SENTINEL_MASTER=%s\nTEMPORAL_ADDRESS=%s\nlogs: %s\n",
		c.DatabaseURL, c.DatabaseReadURL, c.Redis.SentinelAddrs(), SentinelMaster, c.Temporal.Frontend, c.logf.Name())
	return b.String()
}

// Process returns the named process (as in Table), or nil.
func (c *Cluster) Process(name string) *Process {
	for _, p := range c.processes() {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// processes is every process the cluster started but PostgreSQL's servers.
func (c *Cluster) processes() []*Process {
	var out []*Process
	all := append(append(append([]*Process{c.Balancer, c.UI}, c.APIs...), c.Workers...), c.Temporal.Services...)
	for _, p := range append(all, append(c.Redis.Servers[:], c.Redis.Sentinels[:]...)...) {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// Exited names the processes that have exited on their own (PostgreSQL's servers are watched by
// the keeper and the faults, not here).
func (c *Cluster) Exited() []string {
	var out []string
	for _, p := range c.processes() {
		if p.Exited() {
			out = append(out, p.Name)
		}
	}
	return out
}

// Stop stops everything; with keepLogs the directory is kept (and its path returned) even when
// Start made it.
func (c *Cluster) Stop(keepLogs bool) string {
	if c.Balancer != nil {
		c.Balancer.Stop()
	}
	for _, p := range append(c.APIs, c.Workers...) {
		p.Stop()
	}
	if c.UI != nil {
		c.UI.Stop()
	}
	if c.Temporal != nil {
		c.Temporal.stop()
	}
	if c.Redis != nil {
		c.Redis.stop()
	}
	if c.stopKeeper != nil {
		c.stopKeeper()
		<-c.keeperDone
	}
	if c.Postgres != nil {
		c.Postgres.stop()
	}
	if c.logf != nil {
		_ = c.logf.Close()
	}
	if keepLogs || !c.ownDir {
		return c.dir
	}
	if c.pgDir != "" && filepath.Dir(c.pgDir) != c.dir {
		_ = os.RemoveAll(c.pgDir)
	}
	_ = os.RemoveAll(c.dir)
	return ""
}

// WaitFor polls ok every 200 ms until it holds, limit passes or ctx ends; a failed that returns
// an error ends the wait with it at once (a process that exited will not come up).
func WaitFor(ctx context.Context, limit time.Duration, what string, ok func() bool, failed ...func() error) error {
	deadline := time.Now().Add(limit)
	for !ok() {
		for _, f := range failed {
			if err := f(); err != nil {
				return err
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not come up within %s", what, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

var waitFor = WaitFor

// Ready reports whether url/readyz answers 200.
func Ready(url string) bool {
	res, err := (&http.Client{Timeout: 2 * time.Second}).Get(url + "/readyz")
	if err != nil {
		return false
	}
	_ = res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// FreePorts returns n loopback ports free now, below 32768: Temporal keeps membership ports in a
// smallint column, so the kernel's ephemeral ports (32768 and up) will not do. The search starts
// at a random point so that two clusters starting at once rarely probe the same ports.
func FreePorts(n int) ([]int, error) {
	var out []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	const low, high = 20000, 32000
	start := low + rand.IntN(high-low)
	for i := 0; len(out) < n && i < high-low; i++ {
		port := low + (start-low+i)%(high-low)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		lns = append(lns, ln)
		out = append(out, port)
	}
	if len(out) < n {
		return nil, fmt.Errorf("fewer than %d free ports between %d and %d", n, low, high)
	}
	return out, nil
}

func portOf(addr string) (int, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", addr, err)
	}
	var n int
	_, err = fmt.Sscan(port, &n)
	return n, err
}

// QuietLogger keeps the Temporal client's reconnection chatter out of reports.
type QuietLogger struct{}

func (QuietLogger) Debug(string, ...any) {}
func (QuietLogger) Info(string, ...any)  {}
func (QuietLogger) Warn(string, ...any)  {}
func (QuietLogger) Error(string, ...any) {}
