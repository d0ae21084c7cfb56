package cluster

import "syscall"

// processAttr puts a process in its own group, so a kill reaches what it started, and has it
// die with the suite, so a suite killed or timed out leaves nothing running.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
