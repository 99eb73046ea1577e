//go:build unix

package execx

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the shell in its own process group so the whole tree can
// be signalled at once.
func setProcAttr(cmd *exec.Cmd, guarded bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr, guarded)
}

// killGroup sends SIGTERM (or SIGKILL when hard) to the command's group.
func killGroup(cmd *exec.Cmd, hard bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// exitCode reports the exit status, 128+N for death by signal N as shells do.
func exitCode(cmd *exec.Cmd) int {
	ps := cmd.ProcessState
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
