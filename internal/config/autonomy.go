package config

import "time"

// Autonomy bounds hew's self-driven work: a goal (--goal, /goal) and a
// loop (/loop). Zero means the built-in default (goal rounds) or no limit.
// Keys: "goal": {"maxRounds", "maxTokens", "maxCostUSD", "maxMinutes"},
// "loop": {"maxIterations", "maxCostUSD"}.
type Autonomy struct {
	GoalMaxRounds  int
	GoalMaxTokens  int
	GoalMaxCostUSD float64
	GoalMaxWall    time.Duration

	LoopMaxIterations int
	LoopMaxCostUSD    float64
}

type fileGoal struct {
	MaxRounds  *int     `json:"maxRounds"`
	MaxTokens  *int     `json:"maxTokens"`
	MaxCostUSD *float64 `json:"maxCostUSD"`
	MaxMinutes *float64 `json:"maxMinutes"`
}

type fileLoop struct {
	MaxIterations *int     `json:"maxIterations"`
	MaxCostUSD    *float64 `json:"maxCostUSD"`
}

var (
	goalKeys = []string{"maxRounds", "maxTokens", "maxCostUSD", "maxMinutes"}
	loopKeys = []string{"maxIterations", "maxCostUSD"}
)

// mergeAutonomy applies one file's goal and loop limits; negative values
// count as unset.
func (s *Settings) mergeAutonomy(f *File) {
	if g := f.Goal; g != nil {
		if g.MaxRounds != nil && *g.MaxRounds >= 0 {
			s.Autonomy.GoalMaxRounds = *g.MaxRounds
		}
		if g.MaxTokens != nil && *g.MaxTokens >= 0 {
			s.Autonomy.GoalMaxTokens = *g.MaxTokens
		}
		if g.MaxCostUSD != nil && *g.MaxCostUSD >= 0 {
			s.Autonomy.GoalMaxCostUSD = *g.MaxCostUSD
		}
		if g.MaxMinutes != nil && *g.MaxMinutes >= 0 {
			s.Autonomy.GoalMaxWall = time.Duration(*g.MaxMinutes * float64(time.Minute))
		}
	}
	if l := f.Loop; l != nil {
		if l.MaxIterations != nil && *l.MaxIterations >= 0 {
			s.Autonomy.LoopMaxIterations = *l.MaxIterations
		}
		if l.MaxCostUSD != nil && *l.MaxCostUSD >= 0 {
			s.Autonomy.LoopMaxCostUSD = *l.MaxCostUSD
		}
	}
}
