//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the hook in its own process group so a timeout
// kills everything it started, not just sh.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
