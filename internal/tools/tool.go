// Package tools defines what a tool is to hew and holds the built-in tools.
// A tool only validates and runs; permissions, hooks, timing and result
// shaping are the agent's pipeline, so every tool gets them the same way.
package tools

import (
	"context"
	"encoding/json"

	"github.com/hew-dev/hew/internal/netproxy"
)

// Tool is one capability the model can call.
type Tool interface {
	// Name is the name the model sees (SPEC section 4).
	Name() string
	// Description is the model-facing description (embedded Markdown).
	Description() string
	// Schema is the JSON Schema of the input object. It must be
	// byte-identical on every call so the cached tool list never changes.
	Schema() json.RawMessage
	// ReadOnly reports whether a call with this input has no side effects and
	// may run concurrently with other read-only calls (and start while the
	// model is still streaming).
	ReadOnly(input json.RawMessage) bool
	// Run executes a validated call. A returned error becomes an error
	// result for the model; it never stops the loop.
	Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error)
}

// Checker is implemented by tools with semantic checks beyond the schema
// (path inside the project, non-empty command). It runs after schema
// validation and before permissions.
type Checker interface {
	Check(env *Env, input json.RawMessage) error
}

// FileNeutral is implemented by tools that are not read-only (their calls
// are ordered with the others) but never change files, such as todo_write;
// the per-turn checkpoints behind /undo skip them.
type FileNeutral interface {
	ChangesNoFiles() bool
}

// Deferred is implemented by tools whose schema is sent only after the model
// finds them with tool_search.
type Deferred interface {
	Deferred() bool
}

// Result is what a tool produced.
type Result struct {
	// Content is the text the model gets.
	Content string
	// IsError marks a failure the model should react to.
	IsError bool
	// Display is an optional user-facing rendering (e.g. a unified diff).
	Display string
	// Todos is set by todo_write so front-ends can show the list.
	Todos []Todo
	// EndTurn, when set on a successful result, ends the turn after this
	// answer's calls: completed, with EndTurn as the final answer (a plan
	// saved in a run where nobody can approve it).
	EndTurn string
	// SavedAt is where the tool already saved its whole output (run_shell
	// streams it there); the result shaper points to it instead of saving
	// the shortened Content over it.
	SavedAt string
	// Network lists the connections a sandboxed command made through the
	// sandbox's proxy (receipts for --verbose and the session).
	Network []netproxy.Receipt
	// Denials are operations refused on policy grounds while the tool ran
	// (a domain the proxy refused); they join the turn's permission denials.
	Denials []Denied
}

// Denied is one refusal inside a tool run.
type Denied struct {
	Input  json.RawMessage // what was refused, e.g. {"domain": "x", "port": 443}
	Reason string
}

type callIDKey struct{}

// WithCallID tells a tool which call it is running, for files that must be
// unique per call (streamed shell output).
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID is the id given by WithCallID, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// Todo is one item of the model's task list.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"` // pending | in_progress | completed
}

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

// deniedRead applies env.DeniedRead, if any.
func (env *Env) deniedRead(tool, abs string) bool {
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
	// for this command (see Result).
	Network []netproxy.Receipt
	Denials []Denied
}

// Searchable is implemented by tools that offer more than themselves to
// tool_search, such as the skill tool's skills: entries found by a search
// are listed with how to use them.
type Searchable interface {
	SearchEntries() []SearchEntry
}

// SearchEntry is one thing tool_search can find besides deferred tools.
type SearchEntry struct {
	// Name and Kind identify it ("deploy", "skill").
	Name, Kind string
	// Line is shown in the result: what it is and how to use it.
	Line string
	// Text is searched along with Name.
	Text string
}

// Concurrent is implemented by tools whose calls may run side by side with
// the other calls of the same answer although they are not read-only (the
// agent tool: several sub-agents at once). They never start while the
// answer is still streaming.
type Concurrent interface {
	Concurrent(input json.RawMessage) bool
}
