package testsuite

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// StripeMockVersion is the pinned stripe-mock that scripts/lib.sh builds.
const StripeMockVersion = "v0.203.0"

// StartStripeMock runs stripe-mock (a local Stripe API) on a free loopback port for the test and
// returns its base URL. The binary is $STRIPE_MOCK, the tools folder, or stripe-mock on PATH.
func StartStripeMock(t testing.TB) string {
	t.Helper()
	path := os.Getenv("STRIPE_MOCK")
	if path == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			path = filepath.Join(cache, "bookflow", "tools", "stripe-mock-"+StripeMockVersion, "stripe-mock")
		}
		if _, err := os.Stat(path); err != nil {
			path, err = exec.LookPath("stripe-mock")
			require.NoError(t, err, "stripe-mock not found: run scripts/test, which builds it, or set STRIPE_MOCK")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	// Its HTTPS listener would take the fixed port 12112 and stop a second stripe-mock (a test
	// running in parallel): the system picks a free one.
	cmd := exec.Command(path, "-http-addr", addr, "-https-addr", "127.0.0.1:")
	out := &SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// It loads Stripe's whole API description first: seconds on a loaded two-core machine.
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, time.Minute, 50*time.Millisecond, "stripe-mock did not start: %s", out)
	return fmt.Sprintf("http://%s", addr)
}

// SyncBuffer collects what several goroutines write (a process's output, a logger's lines) for a
// test to read.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
