//go:build unix && !linux

package execx

import "syscall"

// setDeathSignal has nothing to set where the kernel has no parent-death
// signal (macOS, BSD): there a killed hew's shell children outlive it.
func setDeathSignal(*syscall.SysProcAttr, bool) {}
