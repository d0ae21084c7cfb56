package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is one of the system's processes, which a fault may kill and which is then started
// again the same way.
type Process struct {
	Name string
	Args []string
	Env  []string // added to this process's environment (less OwnEnviron's exclusions)
	Log  *os.File
	Addr string // what it serves, for the table of what runs where ("" when nothing)

	mu   sync.Mutex
	cmd  *exec.Cmd
	done <-chan struct{} // closed when cmd has exited
}

// Start starts the process; a process still running is left as it is, one that exited on its
// own is started again.
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !p.exited() {
		return nil
	}
	cmd := exec.Command(p.Args[0], p.Args[1:]...)
	cmd.Env = append(OwnEnviron(), p.Env...)
	cmd.Stdout, cmd.Stderr = p.Log, p.Log
	cmd.SysProcAttr = processAttr(syscall.SIGKILL)
	done, err := startTied(cmd)
	if err != nil {
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	p.cmd, p.done = cmd, done
	return nil
}

// startTied starts cmd and returns a channel closed once it has exited. Linux sends the
// parent-death signal (processAttr) when the thread that started the child ends, not the
// process, and Go ends a thread when a goroutine locked to it returns: cmd is started and waited
// for by a goroutine that keeps its own thread for the child's life.
func startTied(cmd *exec.Cmd) (<-chan struct{}, error) {
	started, done := make(chan error, 1), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return done, nil
}

// Exited reports whether the process, once started, has ended on its own (not by Kill or Stop,
// after which it is simply not running).
func (p *Process) Exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited()
}

func (p *Process) exited() bool {
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// OwnEnviron is this process's environment less what would make the children clash or refuse to
// start: one METRICS_ADDR for every bookflow process, and OTEL_* settings the Temporal server
// reads too.
func OwnEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "METRICS_ADDR=") {
			env = append(env, kv)
		}
	}
	return env
}

// Kill ends the process with SIGKILL: nothing in it finishes or cleans up.
func (p *Process) Kill() {
	p.end(syscall.SIGKILL, 0)
}

// Stop ends the process with SIGTERM, and SIGKILL if it has not ended within 20 s.
func (p *Process) Stop() {
	p.end(syscall.SIGTERM, 20*time.Second)
}

func (p *Process) end(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	if p.exited() { // its group id may be another's by now
		p.cmd, p.done = nil, nil
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	done := p.done
	if grace > 0 {
		select {
		case <-done:
		case <-time.After(grace):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	} else {
		<-done
	}
	p.cmd, p.done = nil, nil
}
