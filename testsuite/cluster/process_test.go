package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStartRunsAProcessThatExitedAgain: Start leaves "a process still
// running" as it is, but it tests p.cmd != nil, which also holds for one that exited on its own:
// Start on a crashed process returns nil and starts nothing.
func TestStartRunsAProcessThatExitedAgain(t *testing.T) {
	p := &Process{Name: "crashes", Args: []string{"/bin/sh", "-c", "exit 1"}}
	require.NoError(t, p.Start())
	require.Eventually(t, p.Exited, 5*time.Second, 20*time.Millisecond)
	p.Args = []string{"/bin/sleep", "30"}
	require.NoError(t, p.Start())
	t.Cleanup(p.Kill)
	require.False(t, p.Exited(), "Start on an exited process started nothing")
}
