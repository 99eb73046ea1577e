package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/plan"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
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

// The menu shows the plan, where it is saved and the four choices; a typed
// "4" keeps planning and asks for feedback.
func TestChoosePlanFromPipe(t *testing.T) {
	for _, tc := range []struct {
		input    string
		want     plan.Choice
		feedback string
	}{
		{"2\n", plan.ChoiceExecute, ""},
		{"1\n", plan.ChoiceClearAndExecute, ""},
		{"4\nadd a rollback step\n", plan.ChoiceKeepPlanning, "add a rollback step"},
		{"what?\n", plan.ChoiceKeepPlanning, ""},
	} {
		s, in, out, _ := term.Test()
		in.WriteString(tc.input)
		ap := NewApprover(s, render.New(s, render.Options{}))
		got, fb := ap.ChoosePlan(context.Background(), "# Plan\n1. edit a.go", "/plans/p.md")
		if got != tc.want || fb != tc.feedback {
			t.Errorf("%q: %q %q, want %q %q", tc.input, got, fb, tc.want, tc.feedback)
		}
		for _, want := range []string{"Plan ready", "/plans/p.md", "1. edit a.go", "execute after clearing the context", "keep planning"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("menu lacks %q:\n%s", want, out.String())
			}
		}
	}
}
