package agent

import (
	"encoding/json"
	"testing"

	"github.com/hew-dev/hew/internal/tools"
)

func TestSummary(t *testing.T) {
	got := tools.Summarize(&Tool{}, Name, json.RawMessage(`{"description":"find callers","prompt":"...","subagent_type":"explore"}`))
	if got != "agent(explore find callers)" {
		t.Errorf("summary %q", got)
	}
}
