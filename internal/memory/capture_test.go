package memory

import (
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
