package cluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PGServer is one PostgreSQL server run by a test harness: postgres itself as this process's
// child, not through pg_ctl. pg_ctl daemonises the server (setsid, reparented to init), so a
// harness killed by SIGKILL or a deadline left it running, holding its port, memory and data
// directory. As a direct child it gets a parent-death signal (Linux; see processAttr): SIGQUIT,
// PostgreSQL's immediate shutdown, which ends its backends and frees its shared memory even when
// nobody is left to run a clean-up. A lock or registry file swept at the next start was the
// alternative; it frees nothing until some later run comes, and never when none does.
type PGServer struct {
	DataDir string
	cmd     *exec.Cmd
	done    <-chan struct{} // closed once postgres has exited
}

// PGBin is the bin directory of the newest PostgreSQL whose server is installed (a client
// package alone has no initdb). scripts/lib.sh's pg_bin picks the same one.
func PGBin() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return "", fmt.Errorf("PostgreSQL's server is not installed (apt-get install postgresql; scripts/test installs it)")
	}
	major := func(initdb string) float64 { // /usr/lib/postgresql/15/bin/initdb -> 15
		n, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(filepath.Dir(initdb))), 64)
		return n
	}
	sort.Slice(found, func(i, j int) bool { return major(found[i]) < major(found[j]) })
	return filepath.Dir(found[len(found)-1]), nil
}

// PGCommand is one of PostgreSQL's short-lived commands (initdb, pg_basebackup, pg_ctl
// promote), run as postgres when this process is root: PostgreSQL refuses root.
func PGCommand(name string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

// GiveToPostgres makes dir the postgres user's when this process is root (PostgreSQL runs as
// postgres then); otherwise it leaves dir alone.
func GiveToPostgres(dir string) error {
	cred, err := postgresCredential()
	if err != nil || cred == nil {
		return err
	}
	return os.Chown(dir, int(cred.Uid), int(cred.Gid))
}

// postgresCredential is the postgres user's when this process is root, else nil (run as we are).
func postgresCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("a postgres user to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// StartPGServer starts postgres from bin on dataDir with args (-p, -k, -c ...), its output
// appended to logPath, and returns once it takes connections, as pg_ctl -w does: when
// postmaster.pid says ready (or standby, for a standby without hot_standby).
func StartPGServer(bin, dataDir, logPath string, timeout time.Duration, args ...string) (*PGServer, error) {
	cred, err := postgresCredential()
	if err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	// The server's log is postgres's, as its data directory is.
	if cred != nil {
		if err := logf.Chown(int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), append([]string{"-D", dataDir}, args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = processAttr(syscall.SIGQUIT)
	cmd.SysProcAttr.Credential = cred // Go sets the parent-death signal after this change, which clears it
	done, err := startTied(cmd)
	if err != nil {
		return nil, fmt.Errorf("start postgres on %s: %w", dataDir, err)
	}
	s := &PGServer{DataDir: dataDir, cmd: cmd, done: done}
	deadline := time.Now().Add(timeout)
	for !s.ready() {
		select {
		case <-done:
			return nil, fmt.Errorf("postgres on %s exited while starting: %s", dataDir, tail(logPath))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop(syscall.SIGQUIT)
			return nil, fmt.Errorf("postgres on %s did not take connections within %s: %s", dataDir, timeout, tail(logPath))
		}
	}
	return s, nil
}

// ready reports whether postmaster.pid is this server's and says it takes connections (its 8th
// line, the postmaster's status).
func (s *PGServer) ready() bool {
	pidFile, err := os.ReadFile(filepath.Join(s.DataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(pidFile), "\n")
	if len(lines) < 8 || strings.TrimSpace(lines[0]) != strconv.Itoa(s.cmd.Process.Pid) {
		return false
	}
	status := strings.TrimSpace(lines[7])
	return status == "ready" || status == "standby"
}

// Pid is the postmaster's process id.
func (s *PGServer) Pid() int { return s.cmd.Process.Pid }

// Stop sends the postmaster sig and waits until it has exited: SIGINT is pg_ctl's fast
// shutdown, SIGQUIT its immediate one (no checkpoint: crash recovery at the next start, as
// after a killed machine). One that has not exited within 30 s is killed with its group. A
// stopped server is left as it is.
func (s *PGServer) Stop(sig syscall.Signal) {
	if s == nil || s.Exited() {
		return
	}
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// Exited reports whether the server has exited.
func (s *PGServer) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// tail is the end of a server's log, for an error.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(bytes.TrimSpace(b))
}
