package plan

import (
	"encoding/json"
	"testing"

	"github.com/hew-dev/hew/internal/tools"
)

func TestExitSummaryAndSubject(t *testing.T) {
	in := json.RawMessage(`{"plan":"1. do x\n2. do y"}`)
	exit := &exitTool{}
	if got := tools.Summarize(exit, ExitName, in); got != "exit_plan_mode(1. do x)" {
		t.Errorf("summary %q", got)
	}
	if got := tools.SubjectOf(exit, in); got != "1. do x\n2. do y" {
		t.Errorf("subject %q", got)
	}
}
