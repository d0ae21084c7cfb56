package testsuite

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// RedisSentinel is a Redis primary, one replica and three Sentinels watching them, each its own
// redis-server process on a free loopback port, for tests of a Redis failover. It is stopped
// when the test ends.
type RedisSentinel struct {
	Master    string   // the name the Sentinels monitor the primary by
	Sentinels []string // host:port of each Sentinel
	Primary   int      // the first primary's port
	Replica   int      // the replica's port
	procs     map[int]*exec.Cmd
}

// StartRedisSentinel starts the primary, the replica and the Sentinels, and returns once the
// Sentinels know the replica (so a failover can promote it).
func StartRedisSentinel(t testing.TB) *RedisSentinel {
	t.Helper()
	dir := t.TempDir()
	r := &RedisSentinel{Master: "bookflow", procs: map[int]*exec.Cmd{}}
	r.Primary, r.Replica = freePort(t), freePort(t)
	r.start(t, r.Primary, "--port", strconv.Itoa(r.Primary), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	r.start(t, r.Replica, "--port", strconv.Itoa(r.Replica), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--replicaof", "127.0.0.1", strconv.Itoa(r.Primary))
	for i := range 3 {
		port := freePort(t)
		conf := filepath.Join(dir, fmt.Sprintf("sentinel-%d.conf", i))
		require.NoError(t, os.WriteFile(conf, fmt.Appendf(nil, "port %d\nbind 127.0.0.1\nsentinel monitor %s 127.0.0.1 %d 2\n"+
			"sentinel down-after-milliseconds %s 500\nsentinel failover-timeout %s 5000\n",
			port, r.Master, r.Primary, r.Master, r.Master), 0o644))
		r.start(t, port, conf, "--sentinel")
		r.Sentinels = append(r.Sentinels, "127.0.0.1:"+strconv.Itoa(port))
	}
	sentinel := redis.NewSentinelClient(&redis.Options{Addr: r.Sentinels[0]})
	t.Cleanup(func() { _ = sentinel.Close() })
	require.Eventually(t, func() bool {
		replicas, err := sentinel.Replicas(context.Background(), r.Master).Result()
		return err == nil && len(replicas) == 1
	}, 20*time.Second, 100*time.Millisecond, "the Sentinels find the replica")
	return r
}

func (r *RedisSentinel) start(t testing.TB, port int, args ...string) {
	t.Helper()
	cmd := exec.Command("redis-server", args...)
	require.NoError(t, cmd.Start(), "redis-server (scripts/test installs it)")
	r.procs[port] = cmd
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	require.Eventually(t, func() bool { return portOpen(port) }, 10*time.Second, 50*time.Millisecond, "redis-server on %d", port)
}

// KillPrimary kills the first primary's process, as a crash would.
func (r *RedisSentinel) KillPrimary() {
	if cmd := r.procs[r.Primary]; cmd != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func portOpen(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 100*time.Millisecond)
	if err == nil {
		_ = c.Close()
	}
	return err == nil
}
