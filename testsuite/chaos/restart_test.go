package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bookflow/bookflow/testsuite/cluster"
)

// TestRestartNoticesAProcessThatDoesNotComeBack: the worker and
// Temporal history faults restart their process with no readiness check, and Process.Kill says
// nothing of a process that had already exited, so a worker or history process that crashed
// before the fault, or exits at once when started again, counts as a fault injected and the run
// goes on with one node fewer: the cluster suite then proves nothing about recovery.
func TestRestartNoticesAProcessThatDoesNotComeBack(t *testing.T) {
	p := &cluster.Process{Name: "worker-1", Args: []string{"/bin/sh", "-c", "exit 1"}}
	require.NoError(t, p.Start())
	require.Eventually(t, p.Exited, 5*time.Second, 20*time.Millisecond)
	err := restart(context.Background(), &system{}, p, nil)
	time.Sleep(300 * time.Millisecond)
	require.True(t, p.Exited(), "the process exited again at once")
	require.Error(t, err, "restart reported a process that exited at once as restarted")
}
