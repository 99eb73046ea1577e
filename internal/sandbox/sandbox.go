// Package sandbox confines run_shell commands with Landlock. Landlock binds
// the calling process and everything it spawns, for good, so hew re-executes
// itself as a small helper (`hew __sandbox --rw DIR… [--no-network] -- bash
// -c CMD`) that restricts itself and then execs the shell: writes only in
// the project, the temp directory, additionalDirectories and tool caches;
// reads everywhere; TCP off unless the settings allow the network. Where
// Landlock is missing, commands run unconfined and the caller shows why.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Policy is what a sandboxed command may do.
type Policy struct {
	// Root is the project root (writable).
	Root string
	// Extra are additionalDirectories (writable).
	Extra []string
	// TempDir is writable; empty means os.TempDir().
	TempDir string
	// Home locates tool caches (~/.cache, Go and npm caches) that builds
	// need to write; empty (or "-") means none.
	Home string
	// Getenv reads the environment hew was given (XDG_CACHE_HOME,
	// GOMODCACHE, GOPATH move the caches); nil reads nothing.
	Getenv func(string) string
	// Network allows TCP connect and bind.
	Network bool
	// Executable is the helper binary; empty means os.Executable().
	Executable string
}

// Writable lists the directories the policy lets commands write.
func (p Policy) Writable() []string {
	var dirs []string
	add := func(d string) {
		if d == "" {
			return
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		for _, have := range dirs {
			if have == d {
				return
			}
		}
		dirs = append(dirs, d)
	}
	add(p.Root)
	tmp := p.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	add(tmp)
	for _, d := range p.Extra {
		add(d)
	}
	getenv := p.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if home := p.Home; home != "" && home != "-" {
		cache := getenv("XDG_CACHE_HOME")
		if cache == "" {
			cache = filepath.Join(home, ".cache")
		}
		add(cache)
		if mc := getenv("GOMODCACHE"); mc != "" {
			add(mc)
		} else if gp := getenv("GOPATH"); gp != "" {
			add(filepath.Join(strings.Split(gp, string(os.PathListSeparator))[0], "pkg", "mod"))
		} else {
			add(filepath.Join(home, "go", "pkg", "mod"))
		}
		add(filepath.Join(home, ".npm"))
		add(filepath.Join(home, ".cargo", "registry"))
	}
	return dirs
}

// HelperArg is the hidden first argument that selects the helper
// personality of the hew binary.
const HelperArg = "__sandbox"

// Wrapper returns an argv rewriter (execx.Runner.Wrap) that runs argv
// through the helper under policy p.
func Wrapper(p Policy) func(argv []string) ([]string, error) {
	return func(argv []string) ([]string, error) {
		if len(argv) == 0 {
			return nil, errors.New("sandbox: empty command")
		}
		exe := p.Executable
		if exe == "" {
			var err error
			if exe, err = os.Executable(); err != nil {
				return nil, fmt.Errorf("sandbox: locating the hew binary: %w", err)
			}
		}
		out := []string{exe, HelperArg}
		for _, d := range p.Writable() {
			out = append(out, "--rw", d)
		}
		if !p.Network {
			out = append(out, "--no-network")
		}
		out = append(out, "--")
		return append(out, argv...), nil
	}
}

// Configure decides how run_shell runs: confined through Wrapper when
// enabled and available, otherwise unconfined with a one-line warning for
// the user (empty when confined).
func Configure(p Policy, enabled bool) (wrap func([]string) ([]string, error), warning string) {
	if !enabled {
		return nil, "sandbox off (sandbox.enabled is false in settings): shell commands run unconfined"
	}
	if ok, why := Available(); !ok {
		return nil, "sandbox unavailable (" + why + "): shell commands run unconfined"
	}
	if !p.Network && abiVersion() < 4 {
		return Wrapper(p), "sandbox confines writes only: this kernel's Landlock cannot block the network"
	}
	return Wrapper(p), ""
}

// helperArgs are the parsed helper arguments.
type helperArgs struct {
	rw        []string
	noNetwork bool
	argv      []string
}

func parseArgs(args []string) (helperArgs, error) {
	var h helperArgs
	if len(args) > 0 && args[0] == HelperArg {
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			h.argv = args[i+1:]
			if len(h.argv) == 0 {
				return h, errors.New("no command after --")
			}
			return h, nil
		case a == "--rw":
			if i+1 >= len(args) {
				return h, errors.New("--rw needs a directory")
			}
			h.rw = append(h.rw, args[i+1])
			i++
		case strings.HasPrefix(a, "--rw="):
			h.rw = append(h.rw, strings.TrimPrefix(a, "--rw="))
		case a == "--no-network":
			h.noNetwork = true
		default:
			return h, fmt.Errorf("unknown argument %q", a)
		}
	}
	return h, errors.New("missing -- before the command")
}

const usage = "usage: hew __sandbox [--rw DIR]... [--no-network] -- COMMAND [ARG]..."

// Main is the helper personality: it confines itself and execs the command.
// It returns an exit status only when it cannot exec.
func Main(args []string) int {
	h, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hew sandbox: %v\n%s\n", err, usage)
		return 2
	}
	return run(h)
}
