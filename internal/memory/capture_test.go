package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A failure that repeats becomes one feedback memory with the evidence,
// written at the turn boundary (Flush), not when it is observed.
func TestFailureCapture(t *testing.T) {
	s := Open(t.TempDir())
	q := &Queue{Store: s}
	c := &FailureCapture{Q: q, Now: func() time.Time { return day0 }}
	in := func(cmd string) json.RawMessage { b, _ := json.Marshal(map[string]string{"command": cmd}); return b }
	errText := "npm ERR! code ERESOLVE\nnpm ERR! unable to resolve dependency tree at /home/u/p/node_modules/x (line 12)\nexit code 1"
	if c.Observe("run_shell", in("npm install left-pad"), errText) {
		t.Fatal("captured after one failure")
	}
	if c.Observe("run_shell", in("npm test"), "something else entirely\nexit code 1") {
		t.Fatal("different failures counted as one kind")
	}
	if !c.Observe("run_shell", in("npm install other-pkg"), strings.ReplaceAll(errText, "12", "40")) {
		t.Fatal("repeat of the same failure not captured")
	}
	if c.Observe("run_shell", in("npm install third"), errText) {
		t.Fatal("captured the same kind twice in a session")
	}
	if c.Observe("run_shell", in("rm -rf x"), "Action denied: dontAsk mode denies what would ask") ||
		c.Observe("run_shell", in("rm -rf y"), "Action denied: dontAsk mode denies what would ask") {
		t.Fatal("denials captured as failures")
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatal("written before the turn boundary")
	}
	saved, errs := q.Flush()
	if len(errs) != 0 || len(saved) != 1 {
		t.Fatalf("flush: %+v %v", saved, errs)
	}
	m, _ := s.Get(saved[0].Memory.Name)
	for _, want := range []string{"npm install other-pkg", "ERESOLVE", "2026-11-30", "2 times"} {
		if !strings.Contains(m.Body, want) {
			t.Errorf("evidence lacks %q:\n%s", want, m.Body)
		}
	}
	if m.Type != "feedback" || !strings.Contains(m.Source, "failure capture") || !strings.Contains(m.Name, "run_shell npm install") {
		t.Errorf("memory %+v", m)
	}
}

// memory_write queues; Flush writes; secrets and bad types are refused
// with a reason the model can act on.
func TestMemoryWriteTool(t *testing.T) {
	s := Open(t.TempDir())
	q := &Queue{Store: s}
	tool := &Tool{Q: q}
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
