package wakeup

import (
	"encoding/json"
	"fmt"

	"github.com/hew-dev/hew/internal/tools"
)

// Summary implements tools.Summarizer: the delay and why.
func (*Tool) Summary(input json.RawMessage) string {
	var in struct {
		Delay  float64 `json:"delay_seconds"`
		Reason string  `json:"reason"`
	}
	_ = json.Unmarshal(input, &in)
	delay := ""
	if in.Delay > 0 {
		delay = fmt.Sprintf("%ds", int(in.Delay))
	}
	return tools.SummaryParts(delay, in.Reason)
}

// Subject implements tools.Subjecter: the whole call (it never asks unless
// a rule says so).
func (*Tool) Subject(input json.RawMessage) string { return string(input) }
