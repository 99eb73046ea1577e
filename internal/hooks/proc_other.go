//go:build !unix

package hooks

import "os/exec"

// setProcessGroup relies on the default kill on platforms without process
// groups.
func setProcessGroup(cmd *exec.Cmd) {}
