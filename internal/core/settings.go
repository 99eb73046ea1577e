package core

import (
	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
)

// ApplySettings sets the options the settings decide: the context window
// and compaction, the goal and loop budgets, the project's trust line for
// /status and the memory features.
func (o *Options) ApplySettings(s *config.Settings) {
	o.ContextWindow, o.CompactThreshold, o.AutoCompact = s.ContextWindow, s.CompactThreshold, s.AutoCompact
	a := s.Autonomy
	o.GoalBudget = GoalBudget{MaxRounds: a.GoalMaxRounds, MaxTokens: a.GoalMaxTokens, MaxCostUSD: a.GoalMaxCostUSD, MaxWall: a.GoalMaxWall}
	o.LoopBudget = LoopBudget{MaxIterations: a.LoopMaxIterations, MaxCostUSD: a.LoopMaxCostUSD}
	o.Trust = s.Trust.Summary()
	o.MemoryFailureCapture, o.MemorySemanticRecall = s.MemoryFailureCapture, s.MemorySemanticRecall
}

// Executor is the tool-call pipeline of these options without a session
// (`hew mcp serve`): their tools, environment, permissions, mode and
// hooks; nobody can be asked, so what would ask is denied with hint.
func (o *Options) Executor(hint string) *agent.Executor {
	return agent.NewExecutor(agent.Config{
		Tools:       o.Registry,
		Env:         o.Env,
		Permissions: o.Permissions,
		Mode:        o.Mode,
		Approver:    agent.Headless{Hint: hint},
		Hooks:       o.Hooks,
	})
}
