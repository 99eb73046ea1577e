package core

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/config"
)

// What a settings file says about context, goals, loops and memory
// reaches the session's options.
func TestApplySettings(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{
  "contextWindow": 64000, "compactThreshold": 0.5, "autoCompact": false,
  "goal": {"maxRounds": 4, "maxTokens": 9000, "maxCostUSD": 1.5, "maxMinutes": 2},
  "loop": {"maxIterations": 7, "maxCostUSD": 0.25},
  "memory": {"failureCapture": true, "semanticRecall": true}
}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := config.Load(config.Paths{Home: home, Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	var o Options
	o.ApplySettings(s)
	want := Options{
		ContextWindow: 64000, CompactThreshold: 0.5, AutoCompact: false,
		GoalBudget: GoalBudget{MaxRounds: 4, MaxTokens: 9000, MaxCostUSD: 1.5, MaxWall: 2 * time.Minute},
		LoopBudget: LoopBudget{MaxIterations: 7, MaxCostUSD: 0.25},
		Trust:      s.Trust.Summary(), MemoryFailureCapture: true, MemorySemanticRecall: true,
	}
	if o.ContextWindow != want.ContextWindow || o.CompactThreshold != want.CompactThreshold || o.AutoCompact != want.AutoCompact ||
		o.GoalBudget != want.GoalBudget || o.LoopBudget != want.LoopBudget || o.Trust != want.Trust ||
		o.MemoryFailureCapture != want.MemoryFailureCapture || o.MemorySemanticRecall != want.MemorySemanticRecall {
		t.Errorf("options %+v\nwant %+v", o, want)
	}
}
