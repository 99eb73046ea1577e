package repl

import (
	"testing"

	"github.com/hew-dev/hew/internal/plan"
)

func TestParsePlanChoice(t *testing.T) {
	tests := map[string]plan.Choice{
		"1": plan.ChoiceClearAndExecute, " 2 ": plan.ChoiceExecute, "3": plan.ChoiceKeepPlan, "4": plan.ChoiceKeepPlanning,
		"keep planning": plan.ChoiceKeepPlanning, "execute, keeping": plan.ChoiceExecute, "keep-plan": plan.ChoiceKeepPlan,
	}
	for in, want := range tests {
		if got, ok := parsePlanChoice(in); !ok || got != want {
			t.Errorf("parsePlanChoice(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "5", "yes"} {
		if _, ok := parsePlanChoice(in); ok {
			t.Errorf("parsePlanChoice(%q) accepted", in)
		}
	}
}
