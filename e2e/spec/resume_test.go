package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lastMessages returns the JSON of the messages of the last request that
// reached the server.
func (ms *mockServer) lastMessages(t *testing.T) string {
	t.Helper()
	reqs := ms.requests()
	if len(reqs) == 0 {
		t.Fatal("no request recorded")
	}
	b, _ := json.Marshal(reqs[len(reqs)-1].body["messages"])
	return string(b)
}

// SPEC section 1: -c resumes the newest session of this working directory
// only; --resume ID resumes a session from any directory. Section 1's
// sessions command lists, shows and removes them.
func TestContinueAndResume(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock("")
	dirA := filepath.Join(w.proj, "a")
	dirB := filepath.Join(w.proj, "b")
	dirC := filepath.Join(w.proj, "c")
	for _, d := range []string{dirA, dirB, dirC} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runIn := func(dir string, args ...string) (run, event) {
		t.Helper()
		r := w.exec(call{args: append([]string{"-p", "--output-format", "json"}, args...), env: ms.anthropicEnv(), dir: dir})
		if r.code != 0 {
			t.Fatalf("hew %v in %s: exit %d\n%s", args, dir, r.code, r)
		}
		return r, jsonResult(t, r)
	}
	_, resB := runIn(dirB, "marker-prompt-of-b")
	_, resA1 := runIn(dirA, "marker-prompt-of-a-old")
	_, resA2 := runIn(dirA, "marker-prompt-of-a-new")
	_, resC := runIn(dirC, "marker-prompt-of-c") // newest overall
	idB, idA1, idA2, idC := resB.str("session_id"), resA1.str("session_id"), resA2.str("session_id"), resC.str("session_id")
	if idA1 == idA2 || idA2 == idB || idC == idB {
		t.Fatalf("session ids are not distinct: %s %s %s %s", idA1, idA2, idB, idC)
	}

	// -c in B resumes B's session although C's is newer.
	_, res := runIn(dirB, "-c", "continue-b")
	if res.str("session_id") != idB {
		t.Errorf("-c in b: session %s, want b's %s", res.str("session_id"), idB)
	}
	msgs := ms.lastMessages(t)
	if !strings.Contains(msgs, "marker-prompt-of-b") || strings.Contains(msgs, "marker-prompt-of-c") {
		t.Errorf("-c in b did not send b's history (and only b's): %s", msgs)
	}
	// -c in A picks A's newest session.
	_, res = runIn(dirA, "--continue", "continue-a")
	if res.str("session_id") != idA2 {
		t.Errorf("-c in a: session %s, want the newest %s", res.str("session_id"), idA2)
	}
	if msgs := ms.lastMessages(t); !strings.Contains(msgs, "marker-prompt-of-a-new") || strings.Contains(msgs, "marker-prompt-of-a-old") {
		t.Errorf("-c in a sent the wrong history: %s", msgs)
	}
	// --resume ID from another directory.
	_, res = runIn(dirC, "--resume", idA1, "resume-a-old")
	if res.str("session_id") != idA1 {
		t.Errorf("--resume %s: session %s", idA1, res.str("session_id"))
	}
	if msgs := ms.lastMessages(t); !strings.Contains(msgs, "marker-prompt-of-a-old") {
		t.Errorf("--resume did not send the session's history: %s", msgs)
	}
	// -c where no session exists fails and starts nothing.
	empty := filepath.Join(w.proj, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := w.exec(call{args: []string{"-p", "-c", "x"}, env: ms.anthropicEnv(), dir: empty}); r.code == 0 {
		t.Errorf("-c without a session in this directory succeeded\n%s", r)
	}

	// sessions list: this directory's only.
	r := w.exec(call{args: []string{"sessions", "list"}, dir: dirA})
	if r.code != 0 || !strings.Contains(r.stdout, idA1) || !strings.Contains(r.stdout, idA2) || strings.Contains(r.stdout, idB) {
		t.Errorf("sessions list in a:\n%s", r)
	}
	// sessions show ID from any directory.
	r = w.exec(call{args: []string{"sessions", "show", idB}, dir: dirA})
	if r.code != 0 || !strings.Contains(r.stdout, "marker-prompt-of-b") {
		t.Errorf("sessions show %s:\n%s", idB, r)
	}
	// sessions rm ID.
	r = w.exec(call{args: []string{"sessions", "rm", idA1}, dir: dirA})
	if r.code != 0 {
		t.Errorf("sessions rm: %s", r)
	}
	path := filepath.Join(w.home, "projects", projectKey(dirA), "sessions", idA1+".jsonl")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("sessions rm left %s", path)
	}
	if r = w.exec(call{args: []string{"sessions", "list"}, dir: dirA}); strings.Contains(r.stdout, idA1) {
		t.Errorf("removed session still listed:\n%s", r)
	}
	if r = w.exec(call{args: []string{"sessions", "show", "no-such-session"}, dir: dirA}); r.code == 0 {
		t.Errorf("show of an unknown id succeeded\n%s", r)
	}
}

// A session whose last line was torn by a kill still resumes (SPEC section
// 3: "survives a kill at any moment").
func TestResumeTornSession(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock("")
	r := w.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", "marker-before-the-tear")
	id := jsonResult(t, r).str("session_id")
	path := filepath.Join(w.home, "projects", projectKey(w.proj), "sessions", id+".jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Half a message record, as a kill mid-write leaves it, and a dangling
	// tool call that never got its result.
	if _, err := f.WriteString(`{"type":"message","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_x","name":"read_file","input":{"file_pa`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r = w.hewEnv(ms.anthropicEnv(), "-p", "-c", "--output-format", "json", "after the tear")
	if r.code != 0 {
		t.Fatalf("resume of a torn session: exit %d\n%s", r.code, r)
	}
	if msgs := ms.lastMessages(t); !strings.Contains(msgs, "marker-before-the-tear") {
		t.Fatalf("history before the tear was lost: %s", msgs)
	}
}
