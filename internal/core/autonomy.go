package core

import (
	"fmt"
	"time"

	"github.com/hew-dev/hew/internal/permission"
)

// autonomyRows are the /status rows about self-driven work: the goal in
// progress (round, spend, budgets), the loop's next wake-up, and auto
// mode's allow/block counts.
func (s *Session) autonomyRows() [][2]string {
	var rows [][2]string
	if g, ok := s.GoalStatus(); ok {
		text := fmt.Sprintf("%q · round %d of %d · %d tokens", g.Condition, g.Round, g.Budget.MaxRounds, g.Tokens)
		if g.Budget.MaxTokens > 0 {
			text += fmt.Sprintf(" of %d", g.Budget.MaxTokens)
		}
		if g.CostUSD >= 0 {
			text += fmt.Sprintf(" · $%.4f", g.CostUSD)
			if g.Budget.MaxCostUSD > 0 {
				text += fmt.Sprintf(" of $%.2f", g.Budget.MaxCostUSD)
			}
		}
		text += " · " + g.Elapsed.Round(time.Second).String()
		if g.Budget.MaxWall > 0 {
			text += " of " + g.Budget.MaxWall.String()
		}
		rows = append(rows, [2]string{"goal", text})
	}
	if l, ok := s.LoopStatus(); ok {
		text := fmt.Sprintf("round %d", l.Round)
		if l.MaxIterations > 0 {
			text += fmt.Sprintf(" of %d", l.MaxIterations)
		}
		if !l.NextWake.IsZero() {
			text += " · next wake-up " + l.NextWake.Local().Format("15:04:05")
			if l.Reason != "" {
				text += " (" + l.Reason + ")"
			}
		}
		if l.MaxCostUSD > 0 {
			text += fmt.Sprintf(" · cost cap $%.2f", l.MaxCostUSD)
		}
		rows = append(rows, [2]string{"loop", text})
	}
	st := s.agent.AutoStats()
	if s.Mode() == permission.ModeAuto || st.Allowed+st.Blocked > 0 {
		text := fmt.Sprintf("%d allowed · %d blocked (%d in a row)", st.Allowed, st.Blocked, st.Consecutive)
		if st.FellBack {
			text += " · asking now: " + st.Why
		}
		rows = append(rows, [2]string{"auto", text})
	}
	return rows
}
