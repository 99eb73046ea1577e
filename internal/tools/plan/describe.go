package plan

import (
	"encoding/json"
	"strings"

	"github.com/hew-dev/hew/internal/tools"
)

// Summary implements tools.Summarizer: the plan's first line.
func (*exitTool) Summary(input json.RawMessage) string {
	first, _, _ := strings.Cut(strings.TrimSpace(tools.Field(input, "plan")), "\n")
	return first
}

// Subject implements tools.Subjecter: the whole plan is what is approved.
func (*exitTool) Subject(input json.RawMessage) string { return tools.Field(input, "plan") }

// Summary implements tools.Summarizer: entering plan mode takes no
// arguments.
func (*enterTool) Summary(json.RawMessage) string { return "" }

// Subject implements tools.Subjecter: the whole call (it never asks unless
// a rule says so).
func (*enterTool) Subject(input json.RawMessage) string { return string(input) }
