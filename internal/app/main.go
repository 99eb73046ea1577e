// Package app wires hew together: it takes the command line as cmd/root
// parses it, picks the provider, builds the runtime from the other packages
// and hands it to a front-end (REPL, one-shot or headless). It holds no behaviour of its own;
// everything arrives as values from Main's arguments.
package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/hew-dev/hew/internal/execx"
	"github.com/hew-dev/hew/internal/sandbox"
	"github.com/hew-dev/hew/internal/term"
)

// Exit codes (SPEC section 1).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitLimit       = 3
	ExitInterrupted = 130
)

// Version is hew's version; release builds set it with -ldflags -X.
var Version = "0.1.0-dev"

// Main runs hew with the process's arguments, streams and environment and
// returns the exit code. cmd/hew calls it and exits; tests call it directly.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	if len(args) > 1 && args[1] == sandbox.HelperArg {
		return sandbox.Main(args[2:])
	}
	if len(args) > 1 && args[1] == execx.GuardArg {
		return execx.GuardMain(args[2:])
	}
	a := &cli{stdin: stdin, stdout: stdout, stderr: stderr, lookup: term.EnvFromList(environ), environ: environ}
	rest := args[1:]
	if len(rest) > 0 {
		if run, ok := a.command(rest[0]); ok {
			return run(rest[1:])
		}
	}
	return a.root(rest)
}

// cli is one invocation: the streams and environment it was given.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	lookup         term.Env // the environment, as values
	environ        []string
}

// getenv reads the environment hew was given.
func (a *cli) getenv(k string) string {
	v, _ := a.lookup(k)
	return v
}

// errorf prints a one-line error and returns code.
func (a *cli) errorf(code int, format string, args ...any) int {
	fmt.Fprintf(a.stderr, "hew: "+format+"\n", args...)
	return code
}

// usageError is an error that exits 2 (bad usage or config).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// fail prints err and returns its exit code: 2 for usage errors, else 1.
func (a *cli) fail(err error) int {
	var ue usageError
	code := ExitError
	if errors.As(err, &ue) {
		code = ExitUsage
	}
	return a.errorf(code, "%v", err)
}

// homeDir is the user's home directory, from the given environment first.
func (a *cli) homeDir() string {
	if h := a.getenv("HOME"); h != "" {
		return h
	}
	return a.getenv("USERPROFILE")
}

// hewHome is $HEW_HOME, default ~/.hew; hew's state lives only there.
func (a *cli) hewHome() string {
	if h := a.getenv("HEW_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			return abs
		}
		return h
	}
	return filepath.Join(a.homeDir(), ".hew")
}

// projectRoot is the working directory hew started in, absolute and with
// symlinks resolved, so the same directory always maps to the same key.
func projectRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	return wd, nil
}

// versionString is what --version prints.
func versionString() string {
	v := "hew " + Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return v + " " + runtime.GOOS + "/" + runtime.GOARCH
}
