package testsuite

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/bookflow/bookflow/db"
	"github.com/bookflow/bookflow/payments"
	"github.com/bookflow/bookflow/worker"
)

// Environment of a worker process started by StartWorkerProcess.
const (
	envWorkerProcess  = "BOOKFLOW_TEST_WORKER_PROCESS"
	envWorkerDB       = "BOOKFLOW_TEST_WORKER_DB"
	envWorkerTemporal = "BOOKFLOW_TEST_WORKER_TEMPORAL"
	envWorkerQueue    = "BOOKFLOW_TEST_WORKER_QUEUE"
)

// RunWorkerProcessIfAsked turns the test binary into a worker process when StartWorkerProcess
// started it; call it first in TestMain. Its refunds stay pending at the provider, so a saga it
// runs waits for the provider's webhook: a point to kill it at.
func RunWorkerProcessIfAsked() {
	if os.Getenv(envWorkerProcess) != "1" {
		return
	}
	ctx := context.Background()
	pool, err := db.Connect(ctx, os.Getenv(envWorkerDB))
	if err != nil {
		panic(err)
	}
	c, err := client.Dial(client.Options{HostPort: os.Getenv(envWorkerTemporal), Logger: quietTemporalLogger()})
	if err != nil {
		panic(err)
	}
	w := worker.New(c, db.NewStore(pool, 0), pendingRefunds{}, os.Getenv(envWorkerQueue),
		worker.WithInterceptors(crashHookFromEnv()...))
	if err := w.Run(sdkworker.InterruptCh()); err != nil {
		panic(err)
	}
	os.Exit(0)
}

// pendingRefunds answers every refund with "pending", as a provider that settles later does.
type pendingRefunds struct{}

func (pendingRefunds) CreateRefund(_ context.Context, r payments.RefundRequest) (payments.Refund, error) {
	return payments.Refund{ID: "re_" + r.IdempotencyKey, Status: payments.RefundPending}, nil
}

func (pendingRefunds) LookupRefund(_ context.Context, q payments.RefundLookup) (payments.Refund, bool, error) {
	return payments.Refund{ID: q.RefundID, Status: payments.RefundPending}, q.RefundID != "", nil
}

// WorkerProcess is a worker running in a process of its own.
type WorkerProcess struct{ cmd *exec.Cmd }

// StartWorkerProcess runs the system's worker in a separate process (the test binary itself),
// instead of the in-process one, so a test can kill it the hard way.
func (s *System) StartWorkerProcess(t testing.TB) *WorkerProcess {
	t.Helper()
	return s.startWorkerProcess(t)
}

// startWorkerProcess starts the worker process with env added to its environment.
func (s *System) startWorkerProcess(t testing.TB, env ...string) *WorkerProcess {
	t.Helper()
	s.StopWorker()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWorkerProcess+"=1", envWorkerDB+"="+s.DB.URL,
		envWorkerTemporal+"="+devServer.FrontendHostPort(), envWorkerQueue+"="+s.TaskQueue)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(t, cmd.Start())
	p := &WorkerProcess{cmd: cmd}
	t.Cleanup(p.Kill)
	return p
}

// Kill ends the worker process with SIGKILL: nothing in it gets to finish or clean up.
func (p *WorkerProcess) Kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_ = p.cmd.Wait()
	}
}
