//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Available reports that Landlock exists only on Linux.
func Available() (bool, string) {
	return false, "Landlock is Linux-only and this is " + runtime.GOOS
}

// NamespaceAvailable reports that network namespaces are Linux-only.
func NamespaceAvailable() (bool, string) {
	return false, "network namespaces are Linux-only and this is " + runtime.GOOS
}

// abiVersion is 0: there is no Landlock here.
func abiVersion() int { return 0 }

// run executes the command unconfined, saying so on stderr.
func run(h helperArgs) int {
	fmt.Fprintf(os.Stderr, "hew sandbox: Landlock is unavailable on %s; running unconfined\n", runtime.GOOS)
	cmd := exec.Command(h.argv[0], h.argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "hew sandbox: %v\n", err)
		return 127
	}
	return 0
}
