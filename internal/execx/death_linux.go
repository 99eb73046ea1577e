package execx

import "syscall"

// setDeathSignal makes the group leader die with hew even on kill -9.
// Unguarded, the leader (the shell) gets SIGKILL, which cannot reach its
// own children; guarded, the leader is hew's group guard, which gets
// SIGTERM and kills the whole process group (see execx.GuardMain).
func setDeathSignal(a *syscall.SysProcAttr, guarded bool) {
	a.Pdeathsig = syscall.SIGKILL
	if guarded {
		a.Pdeathsig = syscall.SIGTERM
	}
}
