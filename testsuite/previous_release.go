package testsuite

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// PreviousRelease is the last commit that landed before the confirmation ran as a local
// activity: its worker knows the lean booking's versions up to 3.
const PreviousRelease = "46db8c2"

var releaseBuilds sync.Map // commit → *releaseBuild

type releaseBuild struct {
	once sync.Once
	path string
	err  error
}

// BuildRelease builds `bookflow` as it was at commit (from this checkout's git history) and
// returns the binary's path; one build per test binary. A clone without that commit (a shallow
// one) skips the test, saying so.
func BuildRelease(t testing.TB, commit string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(here))
	if err := exec.Command("git", "-C", root, "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
		t.Skipf("SKIPPED: commit %s, the previous release, is not in this clone's history (%v): fetch it to run this test", commit, err)
	}
	v, _ := releaseBuilds.LoadOrStore(commit, &releaseBuild{})
	b := v.(*releaseBuild)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "bookflow-release-"+commit+"-")
		if err != nil {
			b.err = err
			return
		}
		export := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, commit, dir)
		if out, err := export.CombinedOutput(); err != nil {
			b.err = &buildError{string(out), err}
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(dir, "bookflow"), "./cmd/bookflow")
		build.Dir = dir
		if out, err := build.CombinedOutput(); err != nil {
			b.err = &buildError{string(out), err}
			return
		}
		b.path = filepath.Join(dir, "bookflow")
	})
	require.NoError(t, b.err, "building bookflow at %s", commit)
	return b.path
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// StartReleaseWorker runs `bookflow worker` from binary (another release's) for the system's
// task queue, instead of the in-process worker, with the fake provider and the system's own
// schedule names. Its log is the test's worker.log (a refused workflow task logs its stack).
func (s *System) StartReleaseWorker(t testing.TB, binary string) *WorkerProcess {
	t.Helper()
	s.StopWorker()
	cmd := exec.Command(binary, "worker")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+s.DB.URL, "TEMPORAL_ADDRESS="+devServer.FrontendHostPort(),
		"TASK_QUEUE="+s.TaskQueue, "PAYMENT_PROVIDER=fake", "BOOKFLOW_SCHEDULE_PREFIX="+s.ID+"-",
		"METRICS_ADDR=none", "OTEL_TRACES_EXPORTER=none", "LOG_LEVEL=warn", "REDIS_URL=")
	log, err := os.Create(filepath.Join(t.TempDir(), "worker.log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, cmd.Start())
	p := &WorkerProcess{cmd: cmd}
	t.Cleanup(p.Kill)
	return p
}
