// Package tools defines what a tool is to hew and holds the built-in tools;
// its subpackages hold every other tool the model can call (agent, plan,
// skill, wakeup, memory, mcp), each over its domain package. A tool only
// validates and runs, and says what it is (its Spec, summary, subject and
// the properties in traits.go); permissions, hooks, timing and result
// shaping are the agent's pipeline, so every tool gets them the same way.
package tools

import (
	"context"
	"encoding/json"

	"github.com/hew-dev/hew/internal/callenv"
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
	Network []callenv.NetReceipt
	// Denials are operations refused on policy grounds while the tool ran
	// (a domain the proxy refused); they join the turn's permission denials.
	Denials []Denied
	// Loads names the deferred tools this result makes callable
	// (tool_search select:NAME): llm.Block.ToolRefs of the result.
	Loads []string
}

// Denied is one refusal inside a tool run (callenv.Denied).
type Denied = callenv.Denied

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

// Env is what a running tool may know about its surroundings (package
// callenv: shared with the permission engine and fsutil).
type Env = callenv.Env

// ReadTracker remembers what the model has read (callenv.ReadTracker).
type ReadTracker = callenv.ReadTracker

// ReadReceipt is the state of a file when the model last read or wrote it.
type ReadReceipt = callenv.ReadReceipt

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker { return callenv.NewReadTracker() }

// ShellRunner runs a bash command for run_shell (execx.Runner, sandboxed or not).
type ShellRunner = callenv.ShellRunner

// ShellRequest is one shell command to run.
type ShellRequest = callenv.ShellRequest

// ShellResult is the outcome of a shell command.
type ShellResult = callenv.ShellResult

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
