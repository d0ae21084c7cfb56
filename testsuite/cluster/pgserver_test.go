package cluster

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// harnessEnv makes this test binary a harness that starts one PostgreSQL server ("postgres":
// StartPGServer; "pg_ctl": the way it was started before), says "up" and waits to be killed.
const harnessEnv = "BOOKFLOW_PG_HARNESS"

// TestAKilledHarnessLeavesNoPostgreSQLRunning kills (SIGKILL) a harness once its server takes
// connections: the server must be gone within seconds. The control starts the server through
// pg_ctl, as before, and shows it running on after its harness.
func TestAKilledHarnessLeavesNoPostgreSQLRunning(t *testing.T) {
	if mode := os.Getenv(harnessEnv); mode != "" {
		runHarness(t, mode)
		return
	}
	bin, err := PGBin()
	if err != nil {
		t.Skip(err)
	}
	pgDir, err := postgresDir(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(pgDir) })
	data := filepath.Join(pgDir, "data")
	out, err := PGCommand(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust").CombinedOutput()
	require.NoError(t, err, "initdb: %s", out)

	for _, c := range []struct {
		mode    string
		outlive bool
	}{{"postgres", false}, {"pg_ctl", true}} {
		t.Run(c.mode, func(t *testing.T) {
			ports, err := FreePorts(1)
			require.NoError(t, err)
			// What the harness left running is stopped (a failure here must not leak it too).
			t.Cleanup(func() { _ = PGCommand(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop").Run() })
			pid := startAndKillHarness(t, c.mode, pgDir, ports[0])
			if c.outlive { // the control
				time.Sleep(2 * time.Second)
				require.True(t, alive(pid) && listening(ports[0]), "pg_ctl's server (pid %d) stopped with its harness", pid)
				return
			}
			require.Eventually(t, func() bool { return !alive(pid) && !listening(ports[0]) }, 10*time.Second, 50*time.Millisecond,
				"postgres (pid %d, port %d) runs on after its harness was killed", pid, ports[0])
		})
	}
}

// startAndKillHarness runs this test binary as a harness, kills it once its server is up, and
// returns the server's pid.
func startAndKillHarness(t *testing.T, mode, pgDir string, port int) int {
	cmd := exec.Command(os.Args[0], "-test.run=^TestAKilledHarnessLeavesNoPostgreSQLRunning$", "-test.count=1")
	cmd.Env = append(os.Environ(), harnessEnv+"="+mode, "BOOKFLOW_PG_HARNESS_DIR="+pgDir, "BOOKFLOW_PG_HARNESS_PORT="+strconv.Itoa(port))
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "up" {
		t.Log("harness:", lines.Text())
	}
	require.Equal(t, "up", lines.Text(), "the harness never said its server was up")
	pidFile, err := os.ReadFile(filepath.Join(pgDir, "data", "postmaster.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	require.NoError(t, err)
	require.True(t, alive(pid) && listening(port), "the server is up before the harness is killed")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	return pid
}

// runHarness is the harness's side: start the server, say so, wait to be killed (a minute at most).
func runHarness(t *testing.T, mode string) {
	bin, err := PGBin()
	require.NoError(t, err)
	dir, port := os.Getenv("BOOKFLOW_PG_HARNESS_DIR"), os.Getenv("BOOKFLOW_PG_HARNESS_PORT")
	data := filepath.Join(dir, "data")
	if mode == "pg_ctl" {
		out, err := PGCommand(filepath.Join(bin, "pg_ctl"), "-D", data, "-w", "-l", data+".log", "-o",
			fmt.Sprintf("-p %s -k %s", port, dir), "start").CombinedOutput()
		require.NoError(t, err, "pg_ctl start: %s", out)
	} else {
		_, err := StartPGServer(bin, data, data+".log", time.Minute, "-p", port, "-k", dir)
		require.NoError(t, err)
	}
	fmt.Println("up")
	time.Sleep(time.Minute)
}

// alive reports whether pid is a live process (not a zombie left for init to reap).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// listening reports whether something takes connections on the loopback port.
func listening(port int) bool {
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}
