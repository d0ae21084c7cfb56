//go:build !linux

package cluster

import "syscall"

// processAttr puts a process in its own group, so a kill reaches what it started. Only Linux has
// a parent-death signal: elsewhere what a killed suite started runs on.
func processAttr(syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
