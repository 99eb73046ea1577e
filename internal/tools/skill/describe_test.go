package skill

import (
	"encoding/json"
	"testing"

	"github.com/hew-dev/hew/internal/tools"
)

func TestSummary(t *testing.T) {
	got := tools.Summarize(New(nil, nil, nil), "skill", json.RawMessage(`{"name":"review","arguments":"pr 12"}`))
	if got != "skill(review pr 12)" {
		t.Errorf("summary %q", got)
	}
}
