package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/tools"
)

func writeCall(id, path, content string) agenttest.Step {
	in, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
	return agenttest.Step{Calls: []llm.Block{{Type: llm.BlockToolUse, ID: id, Name: "write_file", Input: in}}}
}

// Two turns write files; /undo takes the last back; /rewind to the first
// message restores the code and drops the conversation from there, and the
// session file resumes to the same shorter, well-paired history.
func TestUndoAndRewind(t *testing.T) {
	r := newRig(t,
		writeCall("w1", "one.txt", "1\n"), agenttest.Step{Text: "wrote one"},
		writeCall("w2", "two.txt", "2\n"), agenttest.Step{Text: "wrote two"},
	)
	store, err := checkpoint.Open(checkpoint.Options{Root: r.root, StateDir: session.ProjectDir(r.home, r.root), Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	s := r.session(t, func(o *Options) {
		tools.RegisterBuiltins(o.Registry)
		o.Mode = permission.ModeBypass
		o.Env = &tools.Env{Root: r.root, StateDir: session.ProjectDir(r.home, r.root)}
		o.Checkpoints = store
	})
	ctx := context.Background()
	for _, p := range []string{"write one", "write two"} {
		if res := s.Submit(ctx, p); res.StopReason != "completed" {
			t.Fatalf("%s: %+v", p, res)
		}
	}
	turns, err := s.Checkpoints()
	if err != nil || len(turns) != 2 {
		t.Fatalf("checkpoints: %v %v", turns, err)
	}
	plan, err := s.PlanUndo(1, false)
	if err != nil || len(plan.Actions) != 1 || plan.Actions[0].Path != "two.txt" {
		t.Fatalf("undo plan: %v %+v", err, plan)
	}
	if _, err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.root, "two.txt")); !os.IsNotExist(err) {
		t.Fatal("two.txt survived the undo")
	}

	points, err := s.RewindPoints()
	if err != nil || len(points) != 2 || points[0].Prompt != "write one" || points[0].Turn == nil || points[1].Turn == nil {
		t.Fatalf("points: %+v %v", points, err)
	}
	plan, err = s.PlanRewindCode(points[0], false)
	if err != nil || len(plan.Actions) != 1 || plan.Actions[0].Path != "one.txt" {
		t.Fatalf("rewind code plan: %v %s", err, plan.Summary())
	}
	plan.Apply()
	if err := s.RewindConversation(points[1]); err != nil {
		t.Fatal(err)
	}
	h := s.History()
	if err := agenttest.CheckPairing(h); err != nil {
		t.Fatalf("rewound history breaks pairing: %v", err)
	}
	if len(h) != 4 || firstText(h[len(h)-1]) != "wrote one" {
		t.Fatalf("history after rewind: %d messages", len(h))
	}
	loaded, err := session.Load(filepath.Join(session.Dir(r.home, r.root), s.ID()+".jsonl"))
	if err != nil || len(loaded.Messages) != len(h) {
		t.Fatalf("resumed history has %d messages, want %d (%v)", len(loaded.Messages), len(h), err)
	}
	if err := s.RewindConversation(points[1]); err == nil {
		t.Fatal("a stale rewind point was accepted")
	}
}

func firstText(m llm.Message) string {
	for _, b := range m.Content {
		if b.Type == llm.BlockText {
			return b.Text
		}
	}
	return ""
}
