package cluster

import "syscall"

// processAttr puts a process in its own group, so a kill reaches what it started, and has the
// kernel send it deathSig when the suite dies, so a suite killed or timed out leaves none of
// these running (PostgreSQL's servers included: see PGServer). The signal goes when the thread
// that started it ends, hence startTied.
func processAttr(deathSig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSig}
}
