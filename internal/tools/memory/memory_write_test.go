package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/memory"
)

// memory_write queues; Flush writes; secrets and bad types are refused
// with a reason the model can act on.
func TestMemoryWriteTool(t *testing.T) {
	s := memory.Open(t.TempDir())
	q := &memory.Queue{Store: s}
	tool := New(q)
	res, err := tool.Run(context.Background(), nil, json.RawMessage(`{"type":"user","name":"answers in French","description":"language of replies","text":"The user asked for replies in French."}`))
	if err != nil || !strings.Contains(res.Content, "when this turn ends") {
		t.Fatalf("%+v %v", res, err)
	}
	if list, _ := s.List(); len(list) != 0 || q.Pending() != 1 {
		t.Fatal("written mid-turn")
	}
	if _, err := tool.Run(context.Background(), nil, json.RawMessage(`{"type":"project","name":"k","description":"d","text":"token = ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`)); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("secret accepted: %v", err)
	}
	if _, err := tool.Run(context.Background(), nil, json.RawMessage(`{"type":"misc","name":"k","description":"d","text":"x"}`)); err == nil || !strings.Contains(err.Error(), "unknown type") {
		t.Fatalf("bad type: %v", err)
	}
	saved, errs := q.Flush()
	if len(saved) != 1 || len(errs) != 0 || saved[0].Memory.File() != "user/answers-in-french.md" {
		t.Fatalf("flush %+v %v", saved, errs)
	}
	if m, _ := s.Get("answers in French"); m.Source != "model (memory_write)" {
		t.Fatalf("source %q", m.Source)
	}
	var d interface{ Deferred() bool } = tool
	if !d.Deferred() {
		t.Fatal("memory_write must be deferred to keep the first request small")
	}
}
