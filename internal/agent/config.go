// Package agent is hew's runtime: the turn loop (model → tools → results →
// repeat), the tool-call pipeline (validate → hooks → permission → run →
// hooks → shape result) and the limits that bound a turn. It takes values
// and emits events; it never touches stdin, stdout or the process environment.
package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// Config is everything a session's runtime needs, built by internal/app.
type Config struct {
	Provider llm.Provider
	Model    string
	// System is the system prompt: the static core (cached) then the
	// dynamic environment block.
	System []llm.SystemBlock
	// Tools is the registry of tools the model may call.
	Tools *tools.Registry
	// Env is handed to every tool call.
	Env *tools.Env

	// Permissions decides each call; nil allows everything.
	Permissions PermissionChecker
	Mode        permission.Mode
	// Approver answers "ask" decisions; nil denies them (headless).
	Approver Approver
	// Hooks runs PreToolUse/PostToolUse hooks (and, if it implements
	// LifecycleHooks, UserPromptSubmit and Stop); nil runs none.
	Hooks HookRunner
	// StopEvent names the event run when the model ends its answer:
	// "Stop" (the default) or "SubagentStop".
	StopEvent string
	// Recorder receives records worth keeping in the session file; nil keeps none.
	Recorder Recorder
	// Emit receives every event in order, synchronously; nil drops them.
	Emit func(Event)
	// Context keeps the history within the window; nil does nothing.
	Context ContextManager
	// Checkpoints records the working tree around calls that may change
	// it, so a turn can be undone; nil records nothing.
	Checkpoints Checkpointer

	MaxTurns int // model round trips per user message (default 50)
	// MaxBudgetTokens and MaxCostUSD are hard stops for the whole run: they
	// count every request since New (all token kinds, side requests
	// included) and are checked before each request. 0 = no limit.
	MaxBudgetTokens int
	MaxCostUSD      float64
	MaxOutputTokens int // per request; 0 = model default
	// ContextWindow overrides the model's known window (from settings); 0 = known.
	ContextWindow int
	// Thinking asks for extended thinking on models that support it.
	Thinking  bool
	SessionID string

	// ToolTimeout bounds one call of a tool other than run_shell and agent
	// (which have their own limits); 0 means DefaultToolTimeout.
	ToolTimeout time.Duration
	// NoStreamingTools turns off starting read-only calls while the model
	// is still streaming (they then start when the answer is complete).
	NoStreamingTools bool
}

// DefaultToolTimeout is the per-call limit for tools without their own.
const DefaultToolTimeout = 5 * time.Minute

// PermissionChecker is the permission engine as the loop sees it.
// permission.Engine implements it.
type PermissionChecker interface {
	Check(req permission.Request) permission.Verdict
	// Grant remembers a "yes for this session" for this exact operation.
	Grant(tool string, input json.RawMessage)
}

// HookRunner runs configured hooks. hooks.Runner implements it.
type HookRunner interface {
	PreToolUse(ctx context.Context, p HookPayload) HookOutcome
	PostToolUse(ctx context.Context, p HookPayload) HookOutcome
}

// StopHooks are the hooks that run when the model ends its answer. A
// HookRunner that also implements it (hooks.Runner does) gets them.
type StopHooks interface {
	// Stop runs when the model ends its answer (event "Stop", or
	// "SubagentStop" in a sub-agent); Block makes it go on with Reason.
	// active is true when an earlier Stop hook of this turn blocked already.
	Stop(ctx context.Context, event, sessionID string, active bool) HookOutcome
}

// MaxStopBlocks bounds how often Stop hooks may keep one turn going.
const MaxStopBlocks = 3

// HookPayload is what a hook is told (it goes to the hook as JSON on stdin).
type HookPayload struct {
	Event     string          `json:"hook_event_name"` // PreToolUse | PostToolUse | PostToolUseFailure
	Tool      string          `json:"tool_name"`
	Input     json.RawMessage `json:"tool_input"`
	Result    string          `json:"tool_response,omitempty"`
	Error     string          `json:"error,omitempty"`
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`
}

// HookOutcome is what the hooks decided together.
type HookOutcome struct {
	// Block stops the call; Reason says why (names the hook).
	Block  bool
	Reason string
	// Permission overrides the permission decision ("allow", "ask", "deny"), if set.
	Permission string
	// UpdatedInput replaces the tool input (validated again), if set.
	UpdatedInput json.RawMessage
	// AdditionalContext is appended to the tool result for the model.
	AdditionalContext string
	// Message is shown to the user.
	Message string
	// Stop ends the turn after this call (continue: false).
	Stop bool
}

// Checkpointer snapshots the working tree for /undo: at the start and end of
// a turn and around every call that is not read-only (whatever the tool, so
// shell-made changes are covered). checkpoint.Tracker implements it.
type Checkpointer interface {
	TurnStart(prompt string)
	BeforeChange(ctx context.Context, callID, tool string, input json.RawMessage) error
	// AfterChange returns the checkpoint the call belongs to and the files
	// it changed, for the call's receipt.
	AfterChange(ctx context.Context, callID, tool string, input json.RawMessage) (checkpoint string, files []string, err error)
	TurnEnd(ctx context.Context) error
}

// Recorder receives session records as they happen. session.Writer implements it.
type Recorder interface {
	// Message records a message appended to the history.
	Message(m llm.Message)
	// Record stores any other record (receipts, compactions, usage) under kind.
	Record(kind string, v any)
}

// ContextManager keeps the history inside the model's window (the tiers of
// internal/compact). The loop calls it at fixed points; nil does nothing.
type ContextManager interface {
	// AtTurnStart runs at a turn boundary, after the user message was added
	// and before the first request: it may auto-compact (tier 4). It returns
	// the history to continue with.
	AtTurnStart(ctx context.Context, req *llm.Request) []llm.Message
	// BeforeRequest applies the cheap tiers (budget, snip, microcompact) to
	// the history about to be sent and returns the history to store and send.
	BeforeRequest(req *llm.Request) []llm.Message
	// AfterResponse records what the provider reported (usage, cache reads).
	AfterResponse(req *llm.Request, resp *llm.Response)
	// Recover handles a prompt-too-long failure: it compacts and reports
	// whether one retry with the returned history makes sense.
	Recover(ctx context.Context, req *llm.Request, err error) ([]llm.Message, bool)
	// Compact summarises the history on request (/compact [focus]).
	Compact(ctx context.Context, req *llm.Request, focus string) ([]llm.Message, error)
}
