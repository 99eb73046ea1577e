// Package permission decides whether a tool call may run: rules, modes,
// protected paths and the shell allowlist analysis, in the order SPEC
// section 4 fixes (deny rules > ask rules > plan's denials > floors > allow
// rules > the mode > built-in analysis: known-safe allows, anything else
// asks). It also proposes the scoped allow rule an approval may save.
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
// "mode:plan", the shell class ("read-only", "local-work", "project-build",
// "unknown", "danger:recursive-delete"), "protected-path", "session-grant",
// "outside-project", "hook", "classifier", "default".
type Verdict struct {
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason"`
	Source   string   `json:"source"`
	// Classify is set in auto mode when the classifier must decide; the
	// caller asks the model and turns its verdict into Allow or Deny.
	Classify bool `json:"-"`
	// Suggest is, for an ask, the scoped allow rule that "yes, and don't
	// ask again" would save (`run_shell(terraform plan:*)`,
	// `web_fetch(domain:example.com)`, `mcp__srv__tool`); empty when no
	// rule could cover the call (floors, risky commands).
	Suggest string `json:"-"`
}
