package core

import "github.com/hew-dev/hew/internal/config"

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
