package agent

import (
	"encoding/json"

	"github.com/hew-dev/hew/internal/tools"
)

// Summary implements tools.Summarizer: the role and the task's description.
func (*Tool) Summary(input json.RawMessage) string {
	return tools.SummaryParts(tools.Field(input, "subagent_type"), tools.Field(input, "description"))
}
