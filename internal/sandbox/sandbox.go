// Package sandbox confines run_shell commands. Landlock binds the calling
// process and everything it spawns, for good, so hew re-executes itself as
// a small helper (`hew __sandbox --rw DIR… --net MODE -- bash -c CMD`) that
// restricts itself and then execs the shell: writes only in the project,
// the temp directory, additionalDirectories and tool caches; reads
// everywhere. The network is off, all, or "proxy": only through hew's
// allowlist proxy (package netproxy). For the proxy the helper puts the
// command in its own user and network namespace with nothing but loopback
// and bridges one loopback port to the proxy outside; where user
// namespaces are unavailable, Landlock lets TCP reach only the proxy's
// port. Where confinement is impossible, commands run unconfined and the
// caller says so (doctor, the first run, every result).
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	// Network allows all TCP connect and bind (Net = NetAll); kept for
	// callers that know only on/off.
	Network bool
	// Net is the network mode; empty means NetAll when Network is set,
	// else NetOff.
	Net NetMode
	// ProxyPort is the proxy's port on 127.0.0.1 for NetProxy.
	ProxyPort int
	// Namespace puts NetProxy commands in their own network namespace
	// (else Landlock limits TCP to ProxyPort).
	Namespace bool
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

// NetMode is what a sandboxed command may do on the network.
type NetMode string

// Network modes.
const (
	NetOff   NetMode = "off"
	NetAll   NetMode = "all"
	NetProxy NetMode = "proxy"
)

// net is the effective network mode.
func (p Policy) net() NetMode {
	switch {
	case p.Net != "":
		return p.Net
	case p.Network:
		return NetAll
	}
	return NetOff
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
		switch n := p.net(); n {
		case NetOff:
			out = append(out, "--no-network")
		case NetProxy:
			if p.ProxyPort <= 0 || p.ProxyPort > 65535 {
				return nil, errors.New("sandbox: the network proxy is not running")
			}
			out = append(out, "--net", string(n), "--proxy-port", strconv.Itoa(p.ProxyPort))
			if p.Namespace {
				out = append(out, "--netns")
			}
		}
		out = append(out, "--")
		return append(out, argv...), nil
	}
}

// helperArgs are the parsed helper arguments.
type helperArgs struct {
	rw        []string
	noNetwork bool
	net       NetMode
	proxyPort int
	netns     bool
	// stage2 marks the helper's second stage, already inside the new
	// namespaces.
	stage2 bool
	argv   []string
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
			h.noNetwork, h.net = true, NetOff
		case a == "--net" && i+1 < len(args):
			h.net = NetMode(args[i+1])
			i++
			if h.net != NetOff && h.net != NetAll && h.net != NetProxy {
				return h, fmt.Errorf("unknown network mode %q", h.net)
			}
			h.noNetwork = h.net == NetOff
		case a == "--proxy-port" && i+1 < len(args):
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n <= 0 || n > 65535 {
				return h, fmt.Errorf("bad --proxy-port %q", args[i+1])
			}
			h.proxyPort = n
			i++
		case a == "--netns":
			h.netns = true
		case a == stage2Arg:
			h.stage2 = true
		default:
			return h, fmt.Errorf("unknown argument %q", a)
		}
	}
	return h, errors.New("missing -- before the command")
}

// Hidden helper arguments of the namespace path.
const (
	stage2Arg = "--stage2"
)

const usage = "usage: hew __sandbox [--rw DIR]... [--no-network | --net off|all|proxy --proxy-port N [--netns]] -- COMMAND [ARG]..."

// Main is the helper personality: it confines itself and execs the command.
// It returns an exit status only when it cannot exec.
func Main(args []string) int {
	h, err := parseArgs(args)
	if err == nil && h.net == NetProxy && h.proxyPort == 0 {
		err = errors.New("--net proxy needs --proxy-port")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hew sandbox: %v\n%s\n", err, usage)
		return 2
	}
	return run(h)
}
