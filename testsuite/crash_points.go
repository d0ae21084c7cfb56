package testsuite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/bookflow/bookflow/activities"
)

// Environment of a worker process that stops dead after a step commits (StartWorkerProcessCrashingAfter).
const (
	envWorkerCrashAfter = "BOOKFLOW_TEST_WORKER_CRASH_AFTER"
	envWorkerCrashFile  = "BOOKFLOW_TEST_WORKER_CRASH_FILE"
	envWorkerSlow       = "BOOKFLOW_TEST_WORKER_SLOW"
)

// slowStepFor is how long the worker process waits before the step named by envWorkerSlow: what
// arrives meanwhile waits in the workflow's channels, not in a blocked select.
const slowStepFor = 2 * time.Second

// crashAfter freezes the worker for good once the activity (or local activity) named step has
// committed: the file tells the test, which then kills the process. The workflow task that ran
// a local activity is never completed, as when a worker dies between a commit and its task.
type crashAfter struct {
	interceptor.WorkerInterceptorBase
	step, file, slow string
}

func (c *crashAfter) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &crashAfterActivity{c: *c}
	i.Next = next
	return i
}

type crashAfterActivity struct {
	interceptor.ActivityInboundInterceptorBase
	c crashAfter
}

func (a *crashAfterActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if activity.GetInfo(ctx).ActivityType.Name == a.c.slow {
		time.Sleep(slowStepFor)
	}
	out, err := a.Next.ExecuteActivity(ctx, in)
	if err == nil && activity.GetInfo(ctx).ActivityType.Name == a.c.step {
		_ = os.WriteFile(a.c.file, []byte(activity.GetInfo(ctx).WorkflowExecution.ID), 0o600)
		select {} // committed; never answered
	}
	return out, err
}

// crashHookFromEnv is the crash point the worker process was started with (nil: none).
func crashHookFromEnv() []interceptor.WorkerInterceptor {
	step := os.Getenv(envWorkerCrashAfter)
	if step == "" {
		return nil
	}
	return []interceptor.WorkerInterceptor{&crashAfter{step: step, file: os.Getenv(envWorkerCrashFile),
		slow: os.Getenv(envWorkerSlow)}}
}

// CrashPoint is a worker process that stops dead after its step commits.
type CrashPoint struct {
	*WorkerProcess
	file string
}

// StartWorkerProcessCrashingAfter runs the system's worker in a process of its own, as
// StartWorkerProcess does, that freezes once the activity named step has committed (for the
// first workflow that runs it) until the test kills it. It runs the activity named slow (if
// any) two seconds late.
func (s *System) StartWorkerProcessCrashingAfter(t testing.TB, step, slow string) *CrashPoint {
	t.Helper()
	file := filepath.Join(t.TempDir(), "crashed")
	p := s.startWorkerProcess(t, envWorkerCrashAfter+"="+step, envWorkerCrashFile+"="+file, envWorkerSlow+"="+slow)
	return &CrashPoint{WorkerProcess: p, file: file}
}

// AwaitCommit waits until the step committed and the process froze; it returns the workflow id.
func (c *CrashPoint) AwaitCommit(t testing.TB) string {
	t.Helper()
	var id []byte
	require.Eventually(t, func() bool {
		var err error
		id, err = os.ReadFile(c.file)
		return err == nil && len(id) > 0
	}, 30*time.Second, 20*time.Millisecond, "the step %s never committed", filepath.Base(c.file))
	return string(id)
}

// WithoutCatchUp is a control: a worker whose steps answer a database ahead of the workflow as
// the conflict they answered before they recognised it (activities.ErrTypeAhead turned back
// into ErrTypeConflict).
func WithoutCatchUp() interceptor.WorkerInterceptor { return &noCatchUp{} }

type noCatchUp struct {
	interceptor.WorkerInterceptorBase
}

func (*noCatchUp) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &noCatchUpActivity{}
	i.Next = next
	return i
}

type noCatchUpActivity struct {
	interceptor.ActivityInboundInterceptorBase
}

func (a *noCatchUpActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	out, err := a.Next.ExecuteActivity(ctx, in)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeAhead {
		return out, temporal.NewNonRetryableApplicationError(appErr.Message(), activities.ErrTypeConflict, nil)
	}
	return out, err
}
