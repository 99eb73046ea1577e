//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Available reports whether the kernel offers Landlock.
func Available() (bool, string) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return false, "Landlock is not enabled in this kernel: " + err.Error()
	}
	if v < 1 {
		return false, "Landlock is not enabled in this kernel"
	}
	if v < 4 {
		return true, fmt.Sprintf("Landlock ABI v%d (file rules only; this kernel cannot block the network)", v)
	}
	return true, fmt.Sprintf("Landlock ABI v%d", v)
}

// abiVersion is the kernel's Landlock ABI version (0 when absent).
func abiVersion() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// devices stay writable: output sinks and terminals.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

func run(h helperArgs) int {
	switch {
	case h.net == NetProxy && h.netns && !h.stage2:
		return bridge(h)
	case h.stage2:
		if err := enterStage2(h); err != nil {
			fmt.Fprintf(os.Stderr, "hew sandbox: cannot set up the network namespace, refusing to run the command: %v\n", err)
			return 126
		}
	}
	return confineAndExec(h)
}

// confineAndExec applies Landlock for h and execs the command.
func confineAndExec(h helperArgs) int {
	cfg := landlock.V11.BestEffort()
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs(h.rw...).WithRefer().IgnoreIfMissing(),
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
	}
	var err error
	switch {
	case h.net == NetProxy && !h.stage2:
		// No namespace: TCP may reach only the proxy's port.
		if abiVersion() < 4 {
			fmt.Fprintln(os.Stderr, "hew sandbox: this kernel's Landlock cannot limit TCP to the proxy, refusing to run the command")
			return 126
		}
		err = cfg.Restrict(append(rules, landlock.ConnectTCP(uint16(h.proxyPort)))...)
	case h.noNetwork:
		err = cfg.Restrict(rules...)
	default:
		// All network, or inside the sandbox's own network namespace where
		// only loopback exists and local servers must work.
		err = cfg.RestrictPaths(rules...)
		if err == nil {
			err = cfg.RestrictScoped()
		}
	}
	if err == nil && (h.noNetwork || h.net == NetProxy && !h.stage2) {
		err = restrictSockets()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hew sandbox: cannot confine the command, refusing to run it: %v\n", err)
		return 126
	}
	path, err := exec.LookPath(h.argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "hew sandbox: %v\n", err)
		return 127
	}
	err = syscall.Exec(path, h.argv, os.Environ())
	fmt.Fprintf(os.Stderr, "hew sandbox: exec %s: %v\n", path, err)
	return 127
}
