package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// Event is something the runtime reports. Front-ends (terminal UI, headless
// JSON writer, MCP server) subscribe; the runtime itself never writes output.
// Events reach a subscriber in order and none is dropped.
type Event interface{ eventName() string }

// StopReason is why a turn ended (SPEC section 6).
type StopReason string

// Turn stop reasons.
const (
	StopCompleted      StopReason = "completed"
	StopMaxTurns       StopReason = "max_turns"
	StopMaxBudget      StopReason = "max_budget"
	StopAborted        StopReason = "aborted"
	StopError          StopReason = "error"
	StopGoalMet        StopReason = "goal_met"
	StopGoalImpossible StopReason = "goal_impossible"
)

// TurnStarted opens a turn for one user message.
type TurnStarted struct{ Prompt string }

// RequestStarted is sent when a model request goes out (spinner start).
type RequestStarted struct{ RoundTrip int }

// TextDelta is a piece of assistant text.
type TextDelta struct{ Text string }

// ThinkingDelta is a piece of model reasoning.
type ThinkingDelta struct{ Text string }

// ToolRequested announces one tool call of the model's answer, in the
// model's order, before the call is checked or run. Calls run in parallel
// report ToolStarted in whatever order their goroutines get there; a
// front-end that lists calls (stream-json's tool_use) goes by this event.
type ToolRequested struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolStarted is sent when a tool call begins executing (after permission).
type ToolStarted struct {
	ID    string
	Name  string
	Input json.RawMessage
	// Summary is a short one-line description of the call's argument.
	Summary string
}

// ToolFinished is sent when a tool call has its result.
type ToolFinished struct {
	ID      string
	Name    string
	Result  string // what the model gets (possibly shortened)
	Display string // a user-facing rendering such as a diff
	IsError bool
	Elapsed time.Duration
	Todos   []tools.Todo
	// Receipt is the call's audit record (for --verbose and the session).
	Receipt *Receipt
	// Denials are operations refused while the call ran (a sandboxed
	// command's network requests); they also end up in the turn's result.
	Denials []Denial
}

// PermissionDecided reports a permission decision about a tool call.
type PermissionDecided struct {
	ID       string
	Tool     string
	Decision string // allow | deny
	Reason   string
	Source   string // rule, mode, user, hook, classifier...
}

// Notice is a one-line message for the user (retrying, compacted, warnings).
type Notice struct {
	Level string // info | warn | error
	Text  string
}

// Retrying reports that a model request failed mid-way and is being sent
// again: text streamed since the last RequestStarted is void and will come
// again. It is followed by a Notice for people.
type Retrying struct {
	Attempt int
	Reason  string
}

// UsageUpdated carries the usage of one model request and the running total.
type UsageUpdated struct {
	Request llm.Usage
	Total   llm.Usage
	CostUSD float64 // -1 when unknown
}

// ContextUpdated reports the context window use after a request.
type ContextUpdated struct {
	Tokens int
	Window int
}

// Compacted reports a compaction (tier 4) or a cheaper tier's action.
type Compacted struct {
	Tier         int
	TokensBefore int
	TokensAfter  int
	Reason       string
}

// CacheMissUnexpected reports that cache reads dropped although the prefix
// should not have changed, with which part's bytes changed.
type CacheMissUnexpected struct{ Reason string }

// TurnEnded closes a turn with its result.
type TurnEnded struct{ Result TurnResult }

func (TurnStarted) eventName() string         { return "turn_started" }
func (RequestStarted) eventName() string      { return "request_started" }
func (TextDelta) eventName() string           { return "text" }
func (ThinkingDelta) eventName() string       { return "thinking" }
func (ToolRequested) eventName() string       { return "tool_requested" }
func (ToolStarted) eventName() string         { return "tool_use" }
func (ToolFinished) eventName() string        { return "tool_result" }
func (PermissionDecided) eventName() string   { return "permission" }
func (Retrying) eventName() string            { return "retry" }
func (Notice) eventName() string              { return "notice" }
func (UsageUpdated) eventName() string        { return "usage" }
func (ContextUpdated) eventName() string      { return "context" }
func (Compacted) eventName() string           { return "compacted" }
func (CacheMissUnexpected) eventName() string { return "cache_miss_unexpected" }
func (TurnEnded) eventName() string           { return "turn_ended" }
func (ApprovalRequest) eventName() string     { return "approval_request" }

// EventName returns the stable name of an event, for logs and JSON writers.
func EventName(e Event) string { return e.eventName() }

// Denial is a tool call that permissions refused, as listed in the result.
type Denial struct {
	ToolUseID string          `json:"tool_use_id"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input"`
	Reason    string          `json:"reason"`
}

// TurnResult is the structured outcome of a turn; a turn never throws.
type TurnResult struct {
	Text       string     `json:"result"`
	StopReason StopReason `json:"stop_reason"`
	Usage      llm.Usage  `json:"usage"`
	CostUSD    float64    `json:"cost_usd"` // -1 when unknown
	Denials    []Denial   `json:"permission_denials"`
	RoundTrips int        `json:"num_turns"`
	Err        string     `json:"error,omitempty"`
	ToolCalls  int        `json:"tool_calls"`
	SessionID  string     `json:"session_id"`
	DurationMS int64      `json:"duration_ms"`
}

// ApprovalRequest asks the user whether a tool call may run. It is emitted
// as an event and answered through Approver.
type ApprovalRequest struct {
	ID      string // the tool_use id
	Tool    string
	Input   json.RawMessage
	Subject string // exact command, path or URL
	Reason  string // why it asks (rule, danger class...)
	Diff    string // for edits: the change as a unified diff
	// Suggest is the scoped allow rule "yes, and don't ask again" saves to
	// .hew/settings.local.json (run_shell(terraform plan:*),
	// web_fetch(domain:example.com), mcp__srv__tool); empty when no rule
	// can cover the call, and then that answer is not offered.
	Suggest string
	// SessionScope says what "yes for this session" covers ("this exact
	// command", "changes to src/x.go", "every fetch from example.com").
	SessionScope string
}

// Approval is the user's answer.
type Approval string

// Answers to an approval request.
const (
	ApproveOnce    Approval = "yes"
	ApproveSession Approval = "session" // yes for this session: same command / same file
	ApproveAlways  Approval = "always"  // yes, and save ApprovalRequest.Suggest as an allow rule
	ApproveDeny    Approval = "no"      // the note, if any, is the user's message for the model
)

// RuleSaver is implemented by permission checkers that can remember an
// approval as an allow rule (the permission engine saves it to
// .hew/settings.local.json and applies it at once).
type RuleSaver interface {
	Remember(rule string) (file string, err error)
}

// Approver answers approval requests. The terminal UI asks the user; headless
// runs use a policy that denies. It must honour ctx cancellation.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, string)
}

// Headless is the Approver of runs that cannot ask (hew -p): every question
// is answered no without asking, and the denial (source "headless") says
// that nobody could be asked, then Hint (how to allow it). A nil Approver
// behaves the same with a default hint.
type Headless struct{ Hint string }

// Approve implements Approver.
func (Headless) Approve(context.Context, ApprovalRequest) (Approval, string) {
	return ApproveDeny, "headless run"
}
