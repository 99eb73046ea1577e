package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/prompt"
)

const goalEvalPrompt = `You judge whether a coding agent has met a goal. You get the goal and a
transcript of the agent's latest work. Answer with one JSON object and nothing else:
{"ok": true|false, "impossible": true|false, "reason": "one sentence"}
"ok" is true only when the transcript shows the condition holds (checked, not merely claimed).
"impossible" is true only when the condition cannot be met (e.g. it contradicts itself or needs
something the agent cannot have).`

// goalVerdict is the evaluator's answer.
type goalVerdict struct {
	OK         bool   `json:"ok"`
	Impossible bool   `json:"impossible"`
	Reason     string `json:"reason"`
}

// runGoal runs text, then lets an evaluator judge the --goal condition after
// each round, sending the agent back with the evaluator's reason until the
// goal is met, judged impossible, or a limit ends it.
func (s *Session) runGoal(ctx context.Context, text, cond string) agent.TurnResult {
	msg := text + "\n\n" + prompt.GoalNote(cond)
	var total agent.TurnResult
	s.startGoal(cond)
	defer s.endGoal()
	outer := ctx
	if wall := s.goalBudget().MaxWall; wall > 0 {
		// The wall-time budget also stops a round that is still running.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wall)
		defer cancel()
	}
	for round := 1; ; round++ {
		s.setGoalRound(round)
		res := s.agent.Run(ctx, s.userPrompt(msg))
		total = mergeResults(total, res)
		if res.StopReason == agent.StopAborted && outer.Err() == nil && ctx.Err() != nil {
			why := fmt.Sprintf("goal wall-time budget of %s used up during round %d", s.goalBudget().MaxWall, round)
			s.emit(agent.Notice{Level: "warn", Text: "goal stopped: " + why})
			total.StopReason, total.Err = agent.StopMaxBudget, why
			return total
		}
		if res.StopReason != agent.StopCompleted {
			return total
		}
		if lim, why := s.overRunBudget(); lim {
			total.StopReason, total.Err = agent.StopMaxBudget, why
			return total
		}
		v, err := s.evalGoal(ctx, cond)
		if err != nil {
			total.StopReason, total.Err = agent.StopError, "goal evaluation: "+err.Error()
			switch {
			case outer.Err() == nil && ctx.Err() != nil:
				total.StopReason, total.Err = agent.StopMaxBudget, fmt.Sprintf("goal wall-time budget of %s used up during the goal check", s.goalBudget().MaxWall)
			case ctx.Err() != nil:
				total.StopReason = agent.StopAborted
			}
			return total
		}
		s.emit(agent.Notice{Level: "info", Text: fmt.Sprintf("goal check %d: met=%v: %s", round, v.OK, v.Reason)})
		switch {
		case v.OK:
			total.StopReason = agent.StopGoalMet
			return total
		case v.Impossible:
			total.StopReason, total.Err = agent.StopGoalImpossible, v.Reason
			return total
		}
		if stop, why, over := s.overGoalBudget(round, v.Reason); over {
			s.emit(agent.Notice{Level: "warn", Text: "goal stopped: " + why})
			total.StopReason, total.Err = stop, why
			return total
		}
		msg = "The goal is not met yet: " + v.Reason + "\n" + prompt.GoalNote(cond)
	}
}

// overRunBudget applies --max-budget-tokens and --max-cost-usd to the whole
// run (a goal run has several turns).
func (s *Session) overRunBudget() (bool, string) {
	u, cost := s.agent.Usage()
	if s.o.MaxBudgetTokens > 0 && u.Total() >= s.o.MaxBudgetTokens {
		return true, fmt.Sprintf("token budget of %d used up", s.o.MaxBudgetTokens)
	}
	if s.o.MaxCostUSD > 0 && cost >= s.o.MaxCostUSD {
		return true, fmt.Sprintf("cost limit of $%.2f reached", s.o.MaxCostUSD)
	}
	return false, ""
}

// evalGoal asks the model (purpose goal_eval) whether cond holds, showing it
// the latest turn of the history.
func (s *Session) evalGoal(ctx context.Context, cond string) (goalVerdict, error) {
	req := &llm.Request{
		Model:     s.agent.Model(),
		System:    []llm.SystemBlock{{Text: llm.PurposeTag(llm.PurposeGoalEval) + "\n" + goalEvalPrompt}},
		Messages:  []llm.Message{llm.UserText("Goal: " + cond + "\n\nTranscript of the latest work:\n" + lastTurnTranscript(s.agent.History(), 20000))},
		MaxTokens: 1024,
		Purpose:   llm.PurposeGoalEval,
	}
	s.mu.Lock()
	prov := s.provider
	s.mu.Unlock()
	resp, err := llm.Metered{Provider: prov, OnUsage: s.countSide}.Stream(ctx, req, func(llm.Event) {})
	if err != nil {
		return goalVerdict{}, err
	}
	return parseVerdict(resp.Message.Text())
}

// parseVerdict reads the first JSON object in s; unparsable means "not met".
func parseVerdict(s string) (goalVerdict, error) {
	var v goalVerdict
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i || json.Unmarshal([]byte(s[i:j+1]), &v) != nil {
		return goalVerdict{Reason: "the evaluator's answer was not the JSON asked for: " + shortText(s, 200)}, nil
	}
	return v, nil
}

// lastTurnTranscript renders the history since the last plain user prompt.
func lastTurnTranscript(h []llm.Message, limit int) string {
	start := 0
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleUser && h[i].Text() != "" {
			start = i
			break
		}
	}
	var b strings.Builder
	for _, m := range h[start:] {
		for _, blk := range m.Content {
			switch blk.Type {
			case llm.BlockText:
				fmt.Fprintf(&b, "%s: %s\n", m.Role, blk.Text)
			case llm.BlockToolUse:
				fmt.Fprintf(&b, "tool call %s %s\n", blk.Name, shortText(string(blk.Input), 500))
			case llm.BlockToolResult:
				fmt.Fprintf(&b, "tool result (error=%v): %s\n", blk.IsError, shortText(blk.Content, 1500))
			}
		}
	}
	s := b.String()
	if r := []rune(s); len(r) > limit {
		s = "…" + string(r[len(r)-limit:])
	}
	return s
}

// mergeResults adds a round's result to the run's total.
func mergeResults(total, r agent.TurnResult) agent.TurnResult {
	u := total.Usage
	u.Add(r.Usage)
	cost := total.CostUSD + r.CostUSD
	if total.CostUSD < 0 || r.CostUSD < 0 {
		cost = -1
	}
	r.Usage, r.CostUSD = u, cost
	r.Denials = append(append([]agent.Denial(nil), total.Denials...), r.Denials...)
	r.RoundTrips += total.RoundTrips
	r.ToolCalls += total.ToolCalls
	r.DurationMS += total.DurationMS
	return r
}

func shortText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
