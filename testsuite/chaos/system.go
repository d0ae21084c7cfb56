package chaos

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/worker"
	"github.com/bookflow/bookflow/workflows"
)

// process is one of the system's processes, which a fault may kill and which is then started
// again the same way.
type process struct {
	name string
	args []string
	env  []string
	log  *os.File
	cmd  *exec.Cmd
}

func (p *process) start() error {
	p.cmd = exec.Command(p.args[0], p.args[1:]...)
	p.cmd.Env = append(ownEnviron(), p.env...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	p.cmd.SysProcAttr = processAttr()
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	return nil
}

// ownEnviron is this process's environment less what would make the children clash or refuse to
// start: one METRICS_ADDR for every bookflow process, and OTEL_* settings the Temporal server
// reads too.
func ownEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "METRICS_ADDR=") {
			env = append(env, kv)
		}
	}
	return env
}

// kill ends the process with SIGKILL: nothing in it finishes or cleans up.
func (p *process) kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		_ = p.cmd.Wait()
	}
}

// stop ends the process with SIGTERM, and SIGKILL if it has not ended within 20 s.
func (p *process) stop() {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		p.kill()
	}
}

// system is bookflow running as in production: a Temporal server with a file store, a worker
// process and an API process, on a database of its own, paying through the controllable
// provider.
type system struct {
	dir                       string
	logf                      *os.File
	temporal, worker, api     *process
	temporalAddr, apiURL      string
	provider                  *Provider
	jwtSecret, webhookSecret  []byte
	client                    client.Client
	databaseURL, pgRestartCmd string
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
	ports, err := freePorts(3)
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
	s.temporal = &process{name: "temporal", args: targs, log: logf}
	env := []string{
		"DATABASE_URL=" + databaseURL, "TEMPORAL_ADDRESS=" + s.temporalAddr, "TASK_QUEUE=" + taskQueue, "LOG_LEVEL=error",
		"PAYMENT_PROVIDER=stripe", "STRIPE_API_KEY=sk_test_chaos", "STRIPE_API_BASE=" + provider.URL,
		"STRIPE_WEBHOOK_SECRET=" + string(s.webhookSecret), "AUTH_JWT_SECRET=" + string(s.jwtSecret),
		"BOOKING_ID_KEY=chaos-booking-id-key-of-at-least-32-bytes", "HTTP_ADDR=" + strings.TrimPrefix(s.apiURL, "http://"),
		"HOLD_TTL=" + holdTTL.String(), "LATE_WINDOW=4s", "REFUND_BACKOFF=300ms", "REFUND_ATTEMPTS=8",
		"MAX_ACTIVE_HOLDS=0", "HOLD_RATE_PER_CUSTOMER=0", "HOLD_RATE_PER_ADDRESS=0",
	}
	s.worker = &process{name: "worker", args: []string{o.Bookflow, "worker"}, env: env, log: logf}
	s.api = &process{name: "api", args: []string{o.Bookflow, "serve"}, env: env, log: logf}
	if err := s.startTemporal(ctx); err != nil {
		return nil, err
	}
	if s.client, err = client.DialContext(ctx, client.Options{HostPort: s.temporalAddr, Logger: quietLogger{}}); err != nil {
		return nil, err
	}
	if err := s.worker.start(); err != nil {
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

// pauseSchedules pauses the schedules the worker keeps: the invariant checker's repairs and the
// reconciliation's deliveries would mend what the runs are there to find. A worker started again
// keeps them paused.
func (s *system) pauseSchedules(ctx context.Context) error {
	for _, id := range []string{workflows.InvariantCheckScheduleID, workflows.ReconcileScheduleID} {
		h := s.client.ScheduleClient().GetHandle(ctx, id)
		if err := waitFor(ctx, 30*time.Second, "the schedule "+id, func() bool {
			return h.Pause(ctx, client.SchedulePauseOptions{Note: "paused by the chaos suite"}) == nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func (s *system) startTemporal(ctx context.Context) error {
	if err := s.temporal.start(); err != nil {
		return err
	}
	return waitFor(ctx, 60*time.Second, "the Temporal server", func() bool {
		conn, err := net.DialTimeout("tcp", s.temporalAddr, time.Second)
		if err != nil {
			return false
		}
		_ = conn.Close()
		c, err := client.DialContext(ctx, client.Options{HostPort: s.temporalAddr, Logger: quietLogger{}})
		if err != nil {
			return false
		}
		defer c.Close()
		_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err == nil
	})
}

func (s *system) startAPI(ctx context.Context) error {
	if err := s.api.start(); err != nil {
		return err
	}
	return waitFor(ctx, 60*time.Second, "the API", func() bool {
		res, err := http.Get(s.apiURL + "/readyz")
		if err != nil {
			return false
		}
		_ = res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
}

// stop ends every process; with keepLogs it keeps their logs and returns where they are.
func (s *system) stop(keepLogs bool) string {
	for _, p := range []*process{s.api, s.worker} {
		if p != nil {
			p.stop()
		}
	}
	if s.client != nil {
		s.client.Close()
	}
	if s.temporal != nil {
		s.temporal.stop()
	}
	_ = s.logf.Close()
	if keepLogs {
		return filepath.Join(s.dir, "processes.log")
	}
	_ = os.RemoveAll(s.dir)
	return ""
}

func waitFor(ctx context.Context, limit time.Duration, what string, ok func() bool) error {
	deadline := time.Now().Add(limit)
	for !ok() {
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

func freePorts(n int) ([]int, error) {
	var out []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// quietLogger keeps the Temporal client's reconnection chatter out of the report.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}
