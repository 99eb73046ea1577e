package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// fakeCheckpoints logs what the loop tells it.
type fakeCheckpoints struct {
	mu  sync.Mutex
	log []string
}

func (f *fakeCheckpoints) add(s string) {
	f.mu.Lock()
	f.log = append(f.log, s)
	f.mu.Unlock()
}
func (f *fakeCheckpoints) TurnStart(p string) { f.add("start:" + p) }
func (f *fakeCheckpoints) BeforeChange(_ context.Context, id, tool string, _ json.RawMessage) error {
	f.add("before:" + id)
	return nil
}
func (f *fakeCheckpoints) AfterChange(_ context.Context, id, tool string, _ json.RawMessage) (string, []string, error) {
	f.add("after:" + id)
	return "cp#1", []string{"f.txt"}, nil
}
func (f *fakeCheckpoints) TurnEnd(context.Context) error { f.add("end"); return nil }

// neutralTool is ordered like a write but changes no files.
type neutralTool struct{ *agenttest.Tool }

func (neutralTool) ChangesNoFiles() bool { return true }

// Only calls that may change files (not read-only, not file-neutral) are checkpointed; their receipts name
// the checkpoint; the turn is ended even when it is interrupted.
func TestCheckpointsAroundChangingCalls(t *testing.T) {
	cp := &fakeCheckpoints{}
	p := agenttest.NewProvider(
		step{Calls: []llm.Block{
			{Type: llm.BlockToolUse, ID: "r1", Name: "read", Input: json.RawMessage(`{}`)},
			{Type: llm.BlockToolUse, ID: "w1", Name: "write", Input: json.RawMessage(`{}`)},
			{Type: llm.BlockToolUse, ID: "t1", Name: "todo", Input: json.RawMessage(`{}`)},
		}},
		step{Text: "done"},
	)
	read := &agenttest.Tool{ToolName: "read", RO: true}
	write := &agenttest.Tool{ToolName: "write"}
	todo := neutralTool{&agenttest.Tool{ToolName: "todo"}}
	h := newHarness(t, p, []tools.Tool{read, write, todo}, func(c *Config) { c.Checkpoints = cp })
	if res := h.a.Run(context.Background(), "change it"); res.StopReason != StopCompleted {
		t.Fatalf("stop %s", res.StopReason)
	}
	if got := strings.Join(cp.log, " "); got != "start:change it before:w1 after:w1 end" {
		t.Fatalf("checkpoint calls: %s", got)
	}
	var linked bool
	for _, r := range h.rec.receipts() {
		if r.ToolUseID == "w1" && r.Checkpoint == "cp#1" && len(r.Changed) == 1 {
			linked = true
		}
		if r.ToolUseID == "r1" && r.Checkpoint != "" {
			t.Fatal("a read-only call got a checkpoint")
		}
	}
	if !linked {
		t.Fatalf("receipt of w1 does not name its checkpoint: %+v", h.rec.receipts())
	}

	cp.log = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.a.Run(ctx, "interrupted")
	if got := strings.Join(cp.log, " "); got != "start:interrupted end" {
		t.Fatalf("interrupted turn: %s", got)
	}
	h.checkInvariants()
}

// Calls are announced in the model's order even when a read started
// during the stream is slow to get going and a later call is refused at
// once (stream-json's tool_use events follow ToolRequested).
func TestToolsAnnouncedInModelOrder(t *testing.T) {
	p := agenttest.NewProvider(
		step{Calls: []llm.Block{
			{Type: llm.BlockToolUse, ID: "r1", Name: "read", Input: json.RawMessage(`{}`)},
			{Type: llm.BlockToolUse, ID: "w1", Name: "write", Input: json.RawMessage(`{}`)},
		}},
		step{Text: "done"},
	)
	read := &agenttest.Tool{ToolName: "read", RO: true, CheckFn: func(json.RawMessage) error {
		time.Sleep(200 * time.Millisecond)
		return nil
	}}
	write := &agenttest.Tool{ToolName: "write"}
	pm := &perms{fn: func(r permission.Request) permission.Verdict {
		if r.Tool == "write" {
			return permission.Verdict{Decision: permission.Deny, Reason: "no"}
		}
		return permission.Verdict{Decision: permission.Allow}
	}}
	h := newHarness(t, p, []tools.Tool{read, write}, func(c *Config) { c.Permissions = pm })
	h.a.Run(context.Background(), "go")
	var requested []string
	announced := map[string]bool{}
	for _, ev := range h.ev.list() {
		switch e := ev.(type) {
		case ToolRequested:
			requested = append(requested, e.ID)
			announced[e.ID] = true
		case ToolStarted:
			if !announced[e.ID] {
				t.Fatalf("%s started before it was announced", e.ID)
			}
		case ToolFinished:
			if !announced[e.ID] {
				t.Fatalf("%s finished before it was announced", e.ID)
			}
		}
	}
	if strings.Join(requested, ",") != "r1,w1" {
		t.Fatalf("calls announced in the order %v, want r1,w1", requested)
	}
	h.checkInvariants()
}
