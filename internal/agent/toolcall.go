package agent

import (
	"encoding/json"
	"strings"

	"github.com/hew-dev/hew/internal/tools"
)

// toolcall.go: the loop's calls into package tools for one call
// (schema validation and result shaping). What a call is called and what
// its approval shows, each tool says itself (tools.Summarize, SubjectOf,
// PreviewOf).

// validateInput checks input against the tool's JSON Schema (the error
// names the offending field), then the pipeline runs the semantic check.
func validateInput(reg *tools.Registry, name string, input json.RawMessage) error {
	return reg.Validate(name, input)
}

// shapeResult prepares a result for the model with tools.Shape (persist
// above 30 KB first, then cut above 50,000 characters) and reports where
// the whole result was saved, if it was.
//
// The file is named by session and call id, so two sessions never write
// the same one; savedAt is where the tool already streamed its whole
// output (run_shell), which is then pointed to, never overwritten.
func shapeResult(env *tools.Env, callID, content, savedAt string) (shaped, storedAt string) {
	var stateDir, session string
	if env != nil {
		stateDir, session = env.StateDir, env.SessionID
	}
	id := tools.ResultID(session, callID)
	shaped = tools.Shape(content, tools.ShapeOptions{StateDir: stateDir, ID: id, SavedAt: savedAt})
	if savedAt != "" {
		return shaped, savedAt
	}
	if stateDir != "" && len(content) > tools.DefaultPersistOver {
		if p := tools.ToolResultPath(stateDir, id); strings.Contains(shaped, p) {
			storedAt = p
		}
	}
	return shaped, storedAt
}
