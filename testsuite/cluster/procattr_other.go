//go:build !linux

package cluster

import "syscall"

// processAttr puts a process in its own group, so a kill reaches what it started.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
