package skill

import (
	"encoding/json"

	"github.com/hew-dev/hew/internal/tools"
)

// Summary implements tools.Summarizer: the skill and its arguments.
func (*Tool) Summary(input json.RawMessage) string {
	return tools.SummaryParts(tools.Field(input, "name"), tools.Field(input, "arguments"))
}

// Subject implements tools.Subjecter: the whole call, skill and arguments
// (it never asks unless a rule says so).
func (*Tool) Subject(input json.RawMessage) string { return string(input) }
