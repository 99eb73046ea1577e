//go:build !unix

package execx

import (
	"os/exec"
	"strconv"
)

// setProcAttr: no process groups to set up here; killGroup uses taskkill.
func setProcAttr(cmd *exec.Cmd, guarded bool) {}

// killGroup kills the process tree (taskkill /T /F on Windows; a plain kill
// elsewhere). There is no polite first signal on these platforms.
func killGroup(cmd *exec.Cmd, hard bool) {
	if cmd.Process == nil {
		return
	}
	if p, err := exec.LookPath("taskkill"); err == nil {
		_ = exec.Command(p, "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
	}
	_ = cmd.Process.Kill()
}

func exitCode(cmd *exec.Cmd) int {
	if cmd.ProcessState == nil {
		return -1
	}
	return cmd.ProcessState.ExitCode()
}
