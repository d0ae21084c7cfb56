package cluster

import "syscall"

// processAttr puts a process in its own group, so a kill reaches what it started, and has it
// die with the suite, so a suite killed or timed out leaves none of these running. PostgreSQL's
// servers are not among them: pg_ctl starts them as daemons, and only Stop stops them.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
