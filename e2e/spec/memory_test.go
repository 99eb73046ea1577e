package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reqFirstMessage is the JSON of the first user message of a recorded
// Anthropic request.
func reqFirstMessage(t *testing.T, r recorded) string {
	t.Helper()
	msgs, _ := r.body["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatal("request has no messages")
	}
	b, _ := json.Marshal(msgs[0])
	return string(b)
}

// Issue 16: a memory the model writes in session 1 (memory_write, saved at
// the turn boundary) changes the first request of session 2, which asks
// about the same thing in Chinese.
func TestMemoryWrittenInSessionOneChangesSessionTwo(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock(`{"turns":[
	  {"text":"Loading the memory tool.","tool_calls":[{"name":"tool_search","input":{"query":"select:memory_write"}}]},
	  {"text":"Saving it.","tool_calls":[{"name":"memory_write","input":{"type":"project","name":"部署注意事项","description":"CI 部署前先跑 make check","text":"部署走 CI：先跑 make check，再打 tag。"}}]},
	  {"text":"Noted."},
	  {"text":"Answer for session two."}]}`)
	r := w.hewEnv(ms.anthropicEnv(), "-p", "记住：部署前先跑 make check")
	if r.code != 0 {
		t.Fatalf("session 1: %s", r)
	}
	s1 := ms.requests()
	if len(s1) != 3 { // no memories yet, so no side query
		t.Fatalf("session 1 made %d requests, want 3", len(s1))
	}
	// Nothing was written mid-turn: no request of session 1 carries it.
	for i, req := range s1 {
		if strings.Contains(reqFirstMessage(t, req), "Memories that may help") {
			t.Fatalf("session 1 request %d already carries a recalled memory", i+1)
		}
	}
	files, _ := filepath.Glob(filepath.Join(w.home, "projects", "*", "memory", "project", "*.md"))
	if len(files) != 1 {
		t.Fatalf("memory files after session 1: %v", files)
	}
	body, _ := os.ReadFile(files[0])
	if !strings.Contains(string(body), "source: model (memory_write)") || !strings.Contains(string(body), "make check") {
		t.Fatalf("memory file:\n%s", body)
	}
	list := w.hew("memory", "list")
	if list.code != 0 || !strings.Contains(list.stdout, "部署注意事项") {
		t.Fatalf("hew memory list: %s", list)
	}

	r = w.hewEnv(ms.anthropicEnv(), "-p", "部署流程是什么？")
	if r.code != 0 {
		t.Fatalf("session 2: %s", r)
	}
	var s2 []recorded // main requests only: the semantic side query has no tools
	for _, q := range ms.requests()[3:] {
		if _, ok := q.body["tools"]; ok {
			s2 = append(s2, q)
		}
	}
	if len(s2) == 0 {
		t.Fatal("session 2 sent no main request")
	}
	first := reqFirstMessage(t, s2[0])
	if !strings.Contains(first, "Memories that may help") || !strings.Contains(first, "部署注意事项") || !strings.Contains(first, "CI 部署前先跑 make check") {
		t.Fatalf("session 2's first request does not recall the memory:\n%s", first)
	}
	sys, _ := s2[0].body["system"].([]any)
	env, _ := sys[1].(map[string]any)["text"].(string)
	if !strings.Contains(env, "Memory: 1 memories") {
		t.Fatalf("environment block lacks the memory line:\n%s", env)
	}
}

// hew memory add refuses a secret and says why; nothing is stored.
func TestMemoryAddRefusesSecrets(t *testing.T) {
	w := newWorld(t)
	r := w.hew("memory", "add", "deploy with token="+strings.Repeat("x9", 12))
	if r.code != 2 || !strings.Contains(r.stderr, "refused") || !strings.Contains(r.stderr, "secret") {
		t.Fatalf("secret accepted: %s", r)
	}
	if l := w.hew("memory", "list"); !strings.Contains(l.stdout, "no memories") {
		t.Fatalf("stored anyway: %s", l)
	}
}

// Issue 16: the semantic side query (mock side.memory_recall) finds by
// meaning what words miss; its answer is injected once, between round
// trips: into the second request of the turn, not the first.
func TestMemorySemanticRecallBetweenRoundTrips(t *testing.T) {
	w := newWorld(t)
	if r := w.hew("memory", "add", "--type", "project", "--name", "CI/CD notes", "--description", "deployment runs from the release workflow after tagging", "Tag, then the release workflow deploys."); r.code != 0 {
		t.Fatalf("memory add: %s", r)
	}
	ms := w.startMock(`{"turns":[
	  {"text":"Looking.","tool_calls":[{"name":"run_shell","input":{"command":"sleep 0.5; echo looked"}}]},
	  {"text":"Done."}],
	 "side":{"memory_recall":"project/ci-cd-notes.md"}}`)
	r := w.hewEnv(ms.anthropicEnv(), "-p", "--allowed-tools", "run_shell", "what are the steps to ship it to production")
	if r.code != 0 {
		t.Fatalf("hew: %s", r)
	}
	var main []string
	sides := 0
	for _, q := range ms.requests() {
		b, _ := json.Marshal(q.body)
		if _, ok := q.body["tools"]; ok {
			main = append(main, string(b))
		} else {
			sides++
		}
	}
	if sides != 1 || len(main) != 2 {
		t.Fatalf("%d side and %d main requests, want 1 and 2", sides, len(main))
	}
	if strings.Contains(main[0], "CI/CD notes") {
		t.Fatal("the first request already carries the side answer (words should not match, and it runs in parallel)")
	}
	if strings.Count(main[1], "picked by meaning") != 1 || !strings.Contains(main[1], "ci-cd-notes.md") {
		t.Fatalf("second request lacks the side answer (once):\n%s", main[1])
	}
}

// Issue 16: the built-in PostToolUseFailure capture writes a feedback
// memory when the same kind of failure repeats; a setting turns it off.
func TestMemoryFailureCapture(t *testing.T) {
	for _, off := range []bool{false, true} {
		w := newWorld(t)
		if off {
			w.write(".hew/settings.json", `{"memoryFailureCapture": false}`)
		}
		sc := w.mockEnv(`{"turns":[
		  {"text":"a","tool_calls":[{"name":"run_shell","input":{"command":"ls /nonexistent-hew-a"}}]},
		  {"text":"b","tool_calls":[{"name":"run_shell","input":{"command":"ls /nonexistent-hew-b"}}]},
		  {"text":"gave up"}]}`)
		r := w.hewEnv(sc, "-p", "--mock", "list those dirs")
		if r.code != 0 {
			t.Fatalf("hew: %s", r)
		}
		files, _ := filepath.Glob(filepath.Join(w.home, "projects", "*", "memory", "feedback", "*.md"))
		if off {
			if len(files) != 0 {
				t.Fatalf("capture ran although turned off: %v", files)
			}
			continue
		}
		if len(files) != 1 {
			t.Fatalf("feedback memories: %v\n%s", files, r)
		}
		body, _ := os.ReadFile(files[0])
		for _, want := range []string{"ls /nonexistent-hew-b", "No such file", "2 times", "source: 'failure capture"} {
			if !strings.Contains(string(body), want) {
				t.Errorf("captured memory lacks %q:\n%s", want, body)
			}
		}
	}
}
