package repl

import (
	"context"
	"strings"

	"github.com/hew-dev/hew/internal/plan"
)

// planChoices are the four answers to a finished plan, by key.
var planChoices = []struct {
	key    string
	choice plan.Choice
	label  string
}{
	{"1", plan.ChoiceClearAndExecute, "execute after clearing the context"},
	{"2", plan.ChoiceExecute, "execute, keeping the context"},
	{"3", plan.ChoiceKeepPlan, "keep the plan only (I'll do it)"},
	{"4", plan.ChoiceKeepPlanning, "keep planning"},
}

// ChoosePlan shows a plan the model finished in plan mode (saved at path)
// and asks what to do with it: one of four keys on a terminal, or a line
// from a pipe (1-4 or the first word of a choice). Ctrl+C, Esc or an
// unclear answer keeps planning; keep planning asks for optional feedback.
// It is the session's plan.Decider.
func (a *Approver) ChoosePlan(ctx context.Context, text, path string) (plan.Choice, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ctx.Err() != nil {
		return plan.ChoiceKeepPlanning, ""
	}
	a.r.Println(a.r.Bold("Plan ready") + a.r.Dim("  (saved to "+path+")"))
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		a.r.Println(a.r.Dim("  │ ") + l)
	}
	for _, c := range planChoices {
		a.r.Println("  " + a.r.Bold(c.key) + " " + c.label)
	}
	a.r.Println(a.r.Dim("  choose 1-4 ›"))
	choice := plan.ChoiceKeepPlanning
	if a.s.InTTY && a.s.StdinIsOS() {
		for choice == plan.ChoiceKeepPlanning {
			key, err := a.s.ReadKey(ctx)
			if err != nil {
				return plan.ChoiceKeepPlanning, ""
			}
			if key == "\x03" || key == "\x1b" || key == "\x04" {
				break
			}
			if c, ok := parsePlanChoice(key); ok {
				choice = c
				if c == plan.ChoiceKeepPlanning {
					break
				}
			}
		}
	} else {
		line, err := a.s.ReadLine(ctx)
		if err != nil {
			return plan.ChoiceKeepPlanning, ""
		}
		if c, ok := parsePlanChoice(line); ok {
			choice = c
		}
	}
	for _, c := range planChoices {
		if c.choice == choice {
			a.r.Println(a.r.Dim("  → " + c.label))
		}
	}
	if choice != plan.ChoiceKeepPlanning {
		return choice, ""
	}
	a.r.Println(a.r.Dim("  what should change? (Enter to skip) ›"))
	feedback, _ := a.s.ReadLine(ctx)
	return choice, strings.TrimSpace(feedback)
}

// parsePlanChoice reads a key or a typed answer.
func parsePlanChoice(s string) (plan.Choice, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, c := range planChoices {
		if s == c.key || (s != "" && strings.HasPrefix(c.label, s)) || s == string(c.choice) {
			return c.choice, true
		}
	}
	return "", false
}
