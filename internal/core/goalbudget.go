package core

import (
	"fmt"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
)

// GoalBudget bounds one goal (--goal, /goal) on top of the run's own
// limits: rounds (agent turns the goal asks for), and the tokens, cost and
// wall time spent since the goal began. Zero means the default (rounds) or
// no limit.
type GoalBudget struct {
	MaxRounds  int
	MaxTokens  int
	MaxCostUSD float64
	MaxWall    time.Duration
}

// DefaultGoalRounds is the round limit when GoalBudget.MaxRounds is 0.
const DefaultGoalRounds = 10

// GoalStatus is what /status shows about the goal being worked on.
type GoalStatus struct {
	Condition string
	Round     int
	Tokens    int
	CostUSD   float64 // -1 when unknown
	Elapsed   time.Duration
	Budget    GoalBudget
}

// goalRun is the state of the goal in progress.
type goalRun struct {
	cond      string
	round     int
	start     time.Time
	baseUsage llm.Usage
	baseCost  float64
}

func (s *Session) goalBudget() GoalBudget {
	b := s.o.GoalBudget
	if b.MaxRounds <= 0 {
		b.MaxRounds = DefaultGoalRounds
	}
	return b
}

// startGoal records the goal's beginning (its spend is counted from here).
func (s *Session) startGoal(cond string) {
	u, cost := s.agent.Usage()
	s.mu.Lock()
	s.goalRun = &goalRun{cond: cond, start: s.o.Now(), baseUsage: u, baseCost: cost}
	s.mu.Unlock()
}

func (s *Session) endGoal() {
	s.mu.Lock()
	s.goalRun = nil
	s.mu.Unlock()
}

// goalSpent is what the goal used so far.
func (s *Session) goalSpent() (g goalRun, tokens int, cost float64, elapsed time.Duration, ok bool) {
	u, c := s.agent.Usage()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.goalRun == nil {
		return goalRun{}, 0, 0, 0, false
	}
	g = *s.goalRun
	tokens = u.Total() - g.baseUsage.Total()
	cost = c - g.baseCost
	if c < 0 || g.baseCost < 0 {
		cost = -1
	}
	return g, tokens, cost, s.o.Now().Sub(g.start), true
}

// overGoalBudget reports the first goal budget that is used up after a
// round, with the stop reason it ends the goal with and why.
func (s *Session) overGoalBudget(round int, lastReason string) (agent.StopReason, string, bool) {
	b := s.goalBudget()
	_, tokens, cost, elapsed, ok := s.goalSpent()
	if !ok {
		return "", "", false
	}
	switch {
	case b.MaxTokens > 0 && tokens >= b.MaxTokens:
		return agent.StopMaxBudget, fmt.Sprintf("goal token budget of %d used up (%d tokens) before the goal was met", b.MaxTokens, tokens), true
	case b.MaxCostUSD > 0 && cost >= b.MaxCostUSD:
		return agent.StopMaxBudget, fmt.Sprintf("goal cost budget of $%.2f used up ($%.4f) before the goal was met", b.MaxCostUSD, cost), true
	case b.MaxWall > 0 && elapsed >= b.MaxWall:
		return agent.StopMaxBudget, fmt.Sprintf("goal wall-time budget of %s used up (%s) before the goal was met", b.MaxWall, elapsed.Round(time.Second)), true
	case round >= b.MaxRounds:
		return agent.StopMaxTurns, fmt.Sprintf("goal not met after %d rounds (the goal's limit): %s", round, lastReason), true
	}
	return "", "", false
}

// GoalStatus reports the goal being worked on; ok is false when there is none.
func (s *Session) GoalStatus() (GoalStatus, bool) {
	g, tokens, cost, elapsed, ok := s.goalSpent()
	if !ok {
		return GoalStatus{}, false
	}
	return GoalStatus{Condition: g.cond, Round: g.round, Tokens: tokens, CostUSD: cost, Elapsed: elapsed, Budget: s.goalBudget()}, true
}

func (s *Session) setGoalRound(n int) {
	s.mu.Lock()
	if s.goalRun != nil {
		s.goalRun.round = n
	}
	s.mu.Unlock()
}
