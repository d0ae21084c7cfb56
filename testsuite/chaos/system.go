package chaos

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/testsuite/cluster"
	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

// system is bookflow running as in production, paying through the controllable provider: in
// the single topology a Temporal server with a file store, a worker process and an API process
// on a database of its own; in the cluster topology a whole cluster (package cluster).
type system struct {
	dir                       string
	logf                      *os.File
	temporal, worker, api     *cluster.Process // the single topology's
	cluster                   *cluster.Cluster // the cluster topology's
	temporalAddr, apiURL      string
	provider                  *Provider
	jwtSecret, webhookSecret  []byte
	client                    client.Client
	databaseURL, pgRestartCmd string
	turns                     int // faults of the cluster topology take its processes in turn
}

// turn is the next of n processes to break.
func (s *system) turn(n int) int {
	s.turns++
	return (s.turns - 1) % n
}

const (
	taskQueue = "bookflow-chaos"
	holdTTL   = 3 * time.Second
)

func startSystem(ctx context.Context, o Options, databaseURL string, provider *Provider) (_ *system, err error) {
	dir, err := os.MkdirTemp("", "bookflow-chaos-")
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "processes.log"))
	if err != nil {
		return nil, err
	}
	s := &system{dir: dir, logf: logf, provider: provider, databaseURL: databaseURL, pgRestartCmd: o.PGRestart,
		jwtSecret: []byte("chaos-jwt-secret-of-at-least-32-bytes"), webhookSecret: []byte("whsec_chaos")}
	defer func() {
		if err != nil {
			s.stop(false)
		}
	}()
	ports, err := cluster.FreePorts(3)
	if err != nil {
		return nil, err
	}
	s.temporalAddr = fmt.Sprintf("127.0.0.1:%d", ports[0])
	s.apiURL = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	targs := []string{o.TemporalCLI, "server", "start-dev", "--ip", "127.0.0.1", "--port", fmt.Sprint(ports[0]),
		"--ui-port", fmt.Sprint(ports[2]), "--headless", "--log-level", "error", "--db-filename", filepath.Join(dir, "temporal.db")}
	for _, sa := range worker.SearchAttributeFlags() {
		targs = append(targs, "--search-attribute", sa)
	}
	s.temporal = &cluster.Process{Name: "temporal", Args: targs, Log: logf}
	env := append(s.bookflowEnv(), "DATABASE_URL="+databaseURL, "TEMPORAL_ADDRESS="+s.temporalAddr,
		"HTTP_ADDR="+strings.TrimPrefix(s.apiURL, "http://"))
	s.worker = &cluster.Process{Name: "worker", Args: []string{o.Bookflow, "worker"}, Env: env, Log: logf}
	s.api = &cluster.Process{Name: "api", Args: []string{o.Bookflow, "serve"}, Env: env, Log: logf}
	if err := s.startTemporal(ctx); err != nil {
		return nil, err
	}
	if s.client, err = client.DialContext(ctx, client.Options{HostPort: s.temporalAddr, Logger: cluster.QuietLogger{}}); err != nil {
		return nil, err
	}
	if err := s.worker.Start(); err != nil {
		return nil, err
	}
	if err := s.pauseSchedules(ctx); err != nil {
		return nil, err
	}
	if err := s.startAPI(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// bookflowEnv is what every bookflow process of either topology is told: the provider, the
// secrets, short holds and refund backoffs, and no hold limits (the load is a few customers).
func (s *system) bookflowEnv() []string {
	return []string{"TASK_QUEUE=" + taskQueue, "LOG_LEVEL=error",
		"PAYMENT_PROVIDER=stripe", "STRIPE_API_KEY=sk_test_chaos", "STRIPE_API_BASE=" + s.provider.URL,
		"STRIPE_WEBHOOK_SECRET=" + string(s.webhookSecret), "AUTH_JWT_SECRET=" + string(s.jwtSecret),
		"BOOKING_ID_KEY=chaos-booking-id-key-of-at-least-32-bytes",
		"HOLD_TTL=" + holdTTL.String(), "LATE_WINDOW=4s", "REFUND_BACKOFF=300ms", "REFUND_ATTEMPTS=8",
		"MAX_ACTIVE_HOLDS=0", "HOLD_RATE_PER_CUSTOMER=0", "HOLD_RATE_PER_ADDRESS=0",
	}
}

// startCluster starts the cluster topology: the cluster with bookflow's processes told what
// bookflowEnv says, then a Temporal client of the suite's own.
func startCluster(ctx context.Context, o Options, provider *Provider) (_ *system, err error) {
	s := &system{provider: provider, jwtSecret: []byte("chaos-jwt-secret-of-at-least-32-bytes"),
		webhookSecret: []byte("whsec_chaos")}
	defer func() {
		if err != nil {
			s.stop(true)
		}
	}()
	s.cluster, err = cluster.Start(ctx, cluster.Options{Bookflow: o.Bookflow, TemporalServer: o.TemporalServer,
		TemporalSQLTool: o.TemporalSQLTool, Env: s.bookflowEnv(), Events: o.Out})
	if err != nil {
		return nil, err
	}
	s.apiURL, s.temporalAddr, s.databaseURL = s.cluster.APIURL, s.cluster.Temporal.Frontend, s.cluster.DatabaseURL
	if s.client, err = client.DialContext(ctx, client.Options{HostPort: s.temporalAddr, Logger: cluster.QuietLogger{}}); err != nil {
		return nil, err
	}
	return s, s.pauseSchedules(ctx)
}

// pauseSchedules pauses the schedules the worker keeps: the invariant checker's repairs and the
// reconciliation's deliveries would mend what the runs are there to find. A worker started again
// keeps them paused. The worker creates them once it runs, up to its own minute to come up on a
// loaded cluster (30 s was once too short in CI).
func (s *system) pauseSchedules(ctx context.Context) error {
	for _, id := range []string{workflows.InvariantCheckScheduleID, workflows.ReconcileScheduleID} {
		h := s.client.ScheduleClient().GetHandle(ctx, id)
		if err := waitFor(ctx, 90*time.Second, "the schedule "+id, func() bool {
			return h.Pause(ctx, client.SchedulePauseOptions{Note: "paused by the chaos suite"}) == nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func (s *system) startTemporal(ctx context.Context) error {
	if err := s.temporal.Start(); err != nil {
		return err
	}
	return waitFor(ctx, 60*time.Second, "the Temporal server", func() bool {
		conn, err := net.DialTimeout("tcp", s.temporalAddr, time.Second)
		if err != nil {
			return false
		}
		_ = conn.Close()
		c, err := client.DialContext(ctx, client.Options{HostPort: s.temporalAddr, Logger: cluster.QuietLogger{}})
		if err != nil {
			return false
		}
		defer c.Close()
		_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err == nil
	})
}

func (s *system) startAPI(ctx context.Context) error {
	if err := s.api.Start(); err != nil {
		return err
	}
	return waitFor(ctx, 60*time.Second, "the API", func() bool { return cluster.Ready(s.apiURL) })
}

// stop ends every process; with keepLogs it keeps their logs and returns where they are.
func (s *system) stop(keepLogs bool) string {
	if s.client != nil {
		s.client.Close()
	}
	if s.cluster != nil {
		return s.cluster.Stop(keepLogs)
	}
	for _, p := range []*cluster.Process{s.api, s.worker, s.temporal} {
		if p != nil {
			p.Stop()
		}
	}
	_ = s.logf.Close()
	if keepLogs {
		return filepath.Join(s.dir, "processes.log")
	}
	_ = os.RemoveAll(s.dir)
	return ""
}

var waitFor = cluster.WaitFor
