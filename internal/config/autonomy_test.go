package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAutonomySettings(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"goal": {"maxRounds": 4, "maxTokens": 9000, "maxMinutes": 1.5, "bogus": 1}, "loop": {"maxIterations": 6}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(proj, ".hew"), 0o755)
	if err := os.WriteFile(filepath.Join(proj, ".hew", "settings.json"), []byte(`{"goal": {"maxCostUSD": 0.5}, "loop": {"maxCostUSD": 2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(Paths{Home: home, Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	want := Autonomy{GoalMaxRounds: 4, GoalMaxTokens: 9000, GoalMaxCostUSD: 0.5, GoalMaxWall: 90 * time.Second, LoopMaxIterations: 6, LoopMaxCostUSD: 2}
	if s.Autonomy != want {
		t.Errorf("autonomy %+v, want %+v", s.Autonomy, want)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), `unknown key "bogus" in goal`) {
		t.Errorf("warnings %q", s.Warnings)
	}
}
