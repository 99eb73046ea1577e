package execx

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// DefaultGuard is the guard prefix for Runner.Guard: this executable in
// its guard personality, told hew's pid so it can tell a parent's death
// from a signal hew sent on purpose.
func DefaultGuard() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, GuardArg, "--parent", strconv.Itoa(os.Getpid())}
}

// GuardMain is the guard personality. hew started it as the leader of a
// new process group with SIGTERM as its parent-death signal. It runs the
// command as its child in that group and exits with the command's status.
// A SIGTERM while hew lives is hew stopping the group (the command gets it
// too, with hew's grace period); a SIGTERM after hew died, or finding hew
// already gone, kills the whole group at once.
func GuardMain(args []string) int {
	parent, argv, err := parseGuardArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hew guard: %v\nusage: hew %s --parent PID -- COMMAND [ARG]...\n", err, GuardArg)
		return 2
	}
	if syscall.Getpgrp() != os.Getpid() {
		// Only hew starts the guard, as the leader of a fresh group; run any
		// other way, killing "the group" would hit the caller's own shell.
		fmt.Fprintln(os.Stderr, "hew guard: not a process group leader; hew starts the guard itself")
		return 2
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	killGroup := func() { _ = syscall.Kill(-syscall.Getpgrp(), syscall.SIGKILL) }
	if os.Getppid() != parent { // hew died before the death signal was armed
		killGroup()
		return 137
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "hew guard: start %s: %v\n", argv[0], err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			var ee *exec.ExitError
			switch {
			case err == nil:
				return 0
			case errors.As(err, &ee):
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return 128 + int(ws.Signal())
				}
				return ee.ExitCode()
			}
			return 1
		case <-sigs:
			if os.Getppid() != parent {
				killGroup()
				return 137
			}
		}
	}
}

func parseGuardArgs(args []string) (int, []string, error) {
	parent := -1
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--parent":
			if i+1 >= len(args) {
				return 0, nil, errors.New("--parent needs a pid")
			}
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n <= 0 {
				return 0, nil, fmt.Errorf("--parent: bad pid %q", args[i+1])
			}
			parent = n
			i++
		case "--":
			if parent < 0 {
				return 0, nil, errors.New("missing --parent")
			}
			if i+1 >= len(args) {
				return 0, nil, errors.New("no command after --")
			}
			return parent, args[i+1:], nil
		default:
			return 0, nil, fmt.Errorf("unknown argument %q", args[i])
		}
	}
	return 0, nil, errors.New("missing -- before the command")
}
