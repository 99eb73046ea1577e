// Package callenv is the vocabulary every tool call shares: the environment
// a call runs in, the path scope it may touch, the shell runner and the read
// tracker. Tools, the permission engine and the file-system and process
// helpers (fsutil, execx) all speak it, so it is a leaf: it imports nothing
// of hew, and utility packages need not import the tools package.
package callenv

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"
)

// Env is what a running tool may know about its surroundings. The agent
// builds one per session; tools never read process globals.
type Env struct {
	// Root is the absolute, symlink-resolved project root.
	Root string
	// AdditionalDirs are extra absolute directories the user allowed.
	AdditionalDirs []string
	// HomeDir is the user's home, for "~/" paths.
	HomeDir string
	// StateDir is the per-project state directory ($HEW_HOME/projects/KEY).
	StateDir string
	// SessionID is the current session's id.
	SessionID string
	// Env is the environment for child processes (KEY=VALUE).
	Env []string
	// Reads records what the model has read, for write/edit guards.
	Reads *ReadTracker
	// Shell runs shell commands (sandboxed or not); nil means unsandboxed.
	Shell ShellRunner
	// AllowOutside reports whether an explicit allow rule covers an absolute
	// path outside the root; nil means none does.
	AllowOutside func(tool, absPath string) bool
	// DeniedRead reports whether a deny rule forbids tool from reading an
	// absolute path; search tools drop such files from their results so a
	// project-wide search cannot read around the rule. nil denies nothing.
	DeniedRead func(tool, absPath string) bool
}

// ReadDenied applies env.DeniedRead, if any (nil Env: nothing is denied).
func (env *Env) ReadDenied(tool, abs string) bool {
	return env != nil && env.DeniedRead != nil && env.DeniedRead(tool, abs)
}

// ShellRunner runs a bash command for run_shell. The sandbox package
// provides a Landlock-confined implementation.
type ShellRunner interface {
	Run(ctx context.Context, req ShellRequest) (ShellResult, error)
}

// ShellRequest is one shell command to run.
type ShellRequest struct {
	Command   string
	Dir       string
	Env       []string
	TimeoutMS int
	// MaxOutput caps captured bytes (head and tail kept).
	MaxOutput int
	// OutputFile, when set, receives the whole output as it runs.
	OutputFile string
}

// ShellResult is the outcome of a shell command.
type ShellResult struct {
	Output   string // stdout and stderr interleaved
	ExitCode int
	TimedOut bool
	// Truncated is the number of bytes dropped from the middle of Output.
	Truncated int
	// SandboxNote is a one-line note about confinement (e.g. unavailable)
	// or an explanation of what the sandbox blocked.
	SandboxNote string
	// Total is the number of output bytes the command produced.
	Total int
	// SaveErr is why OutputFile could not be written whole (nil if it was).
	SaveErr error
	// Network and Denials are the sandbox proxy's receipts and refusals
	// for this command.
	Network []NetReceipt
	Denials []Denied
}

// Denied is one refusal inside a tool run (a domain the sandbox's proxy
// refused); it joins the turn's permission denials.
type Denied struct {
	Input  json.RawMessage // what was refused, e.g. {"domain": "x", "port": 443}
	Reason string
}

// NetReceipt records one connection a command made through the sandbox's
// proxy (netproxy.Receipt is this type).
type NetReceipt struct {
	Time time.Time `json:"time"`
	Host string    `json:"host"`
	Port int       `json:"port"`
	// Via is connect (HTTP CONNECT), http (plain HTTP request) or socks5.
	Via string `json:"via"`
	// Addr is the address dialed, when one was.
	Addr     string `json:"addr,omitempty"`
	Decision string `json:"decision"` // allow | deny
	// By says which rule decided: denied-domains, allowed-domains,
	// default-list, user, user:session, user:project, headless,
	// internal-address, error.
	By       string        `json:"decided_by"`
	Reason   string        `json:"reason,omitempty"`
	Up       int64         `json:"bytes_up"`
	Down     int64         `json:"bytes_down"`
	Duration time.Duration `json:"duration_ns"`
	// Command is the scope's label.
	Command string `json:"command,omitempty"`
}

// PathScope describes which paths a tool may touch in env; reading is the
// tool's own word that it only reads (tools.Tool.ReadOnly), which lets it
// also read what hew saved for the model. fsutil.Resolve and the built-in
// tools both use it, so they agree on containment.
func PathScope(env *Env, reading bool) Scope {
	s := Scope{ReadOnly: reading}
	if env == nil {
		return s
	}
	s.Root, s.HomeDir, s.AdditionalDirs, s.AllowOutside = env.Root, env.HomeDir, env.AdditionalDirs, env.AllowOutside
	if env.StateDir != "" {
		// hew's saved tool results and the project's long-term memory: the
		// model reads them with read_file, it never writes them directly.
		s.ReadOnlyDirs = []string{filepath.Join(env.StateDir, "tool-results"), filepath.Join(env.StateDir, "memory")}
	}
	return s
}

// Scope says which absolute paths a tool may touch.
type Scope struct {
	// Root is the absolute project root (symlinks are resolved again here).
	Root string
	// HomeDir expands "~/" paths.
	HomeDir string
	// AdditionalDirs are extra allowed directories (additionalDirectories).
	AdditionalDirs []string
	// ReadOnlyDirs are allowed for tools that only read (for example the
	// session's tool-results directory, so persisted output can be read back).
	ReadOnlyDirs []string
	// ReadOnly reports whether the tool asking only reads.
	ReadOnly bool
	// AllowOutside reports whether an explicit allow rule covers abs.
	AllowOutside func(tool, abs string) bool
}

// Denied reports whether the connection was refused.
func (r NetReceipt) Denied() bool { return r.Decision != "allow" }

// Summary is the receipt as one line for --verbose.
func (r NetReceipt) Summary() string {
	s := fmt.Sprintf("%s:%d %s by %s", r.Host, r.Port, r.Decision, r.By)
	if r.Decision == "allow" {
		s += fmt.Sprintf(" · ↑%d ↓%d bytes · %s", r.Up, r.Down, r.Duration.Round(time.Millisecond))
	} else if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}
