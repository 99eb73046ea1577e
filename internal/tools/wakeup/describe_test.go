package wakeup

import (
	"encoding/json"
	"testing"

	"github.com/hew-dev/hew/internal/tools"
)

func TestSummary(t *testing.T) {
	got := tools.Summarize(New(nil), Name, json.RawMessage(`{"delay_seconds":60,"reason":"check CI"}`))
	if got != "schedule_wakeup(60s check CI)" {
		t.Errorf("summary %q", got)
	}
}
