package memory

import (
	"encoding/json"

	"github.com/hew-dev/hew/internal/tools"
)

// Summary implements tools.Summarizer: the memory's name.
func (*Tool) Summary(input json.RawMessage) string { return tools.Field(input, "name") }

// Subject implements tools.Subjecter: the whole memory (it never asks
// unless a rule says so).
func (*Tool) Subject(input json.RawMessage) string { return string(input) }
