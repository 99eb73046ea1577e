package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
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

// Without a session the options still make the whole pipeline: a read in
// the project runs, a write that would ask is denied with the hint.
func TestOptionsExecutor(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := permission.New(permission.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	o := Options{Registry: reg, Env: &tools.Env{Root: root, Reads: tools.NewReadTracker()}, Permissions: eng, Mode: permission.ModeDefault}
	ex := o.Executor("ask the server's owner")
	for _, tc := range []struct {
		tool, input, want string
		isErr             bool
	}{
		{"read_file", `{"file_path":"a.txt"}`, "hello", false},
		{"write_file", `{"file_path":"b.txt","content":"x"}`, "ask the server's owner", true},
	} {
		res := ex.Execute(context.Background(), llm.Block{Type: llm.BlockToolUse, ID: "t", Name: tc.tool, Input: json.RawMessage(tc.input)})
		if res.IsError != tc.isErr || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s: %+v, want %q (error %v)", tc.tool, res, tc.want, tc.isErr)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err == nil {
		t.Error("the denied write ran")
	}
}
