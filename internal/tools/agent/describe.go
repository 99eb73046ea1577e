package agent

import (
	"encoding/json"

	"github.com/hew-dev/hew/internal/tools"
)

// Summary implements tools.Summarizer: the role and the task's description.
func (*Tool) Summary(input json.RawMessage) string {
	return tools.SummaryParts(tools.Field(input, "subagent_type"), tools.Field(input, "description"))
}

// Subject implements tools.Subjecter: the whole call, task and role (it
// never asks unless a rule says so).
func (*Tool) Subject(input json.RawMessage) string { return string(input) }
