// Package permission decides whether a tool call may run: rules, modes,
// protected paths and the shell danger analysis, in the order SPEC section 4
// fixes (deny > ask > allow > mode > danger analysis > allow).
package permission

import "encoding/json"

// Mode is a permission mode (SPEC section 4).
type Mode string

// Permission modes.
const (
	ModeDefault     Mode = "default"
	ModePlan        Mode = "plan"
	ModeAcceptEdits Mode = "acceptEdits"
	ModeBypass      Mode = "bypassPermissions"
	ModeDontAsk     Mode = "dontAsk"
	ModeAuto        Mode = "auto"
)

// Decision is the outcome of a check.
type Decision string

// Decisions.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// Request is one tool call to judge.
type Request struct {
	Tool  string
	Input json.RawMessage
	Mode  Mode
}

// Verdict is a decision with its reason and where it came from.
// Source is e.g. "rule:deny run_shell(rm -rf*) (.hew/settings.json)",
// "mode:plan", "danger:recursive-delete", "protected-path", "session-grant",
// "outside-project", "danger-analysis", "hook", "classifier", "default".
type Verdict struct {
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason"`
	Source   string   `json:"source"`
	// Classify is set in auto mode when the classifier must decide; the
	// caller asks the model and turns its verdict into Allow or Deny.
	Classify bool `json:"-"`
}
