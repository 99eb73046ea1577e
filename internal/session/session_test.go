package session

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
)

func call(id string) llm.Block {
	return llm.Block{Type: llm.BlockToolUse, ID: id, Name: "read_file", Input: json.RawMessage(`{"file_path":"a"}`)}
}

func result(id string) llm.Block {
	return llm.Block{Type: llm.BlockToolResult, ID: id, Content: "ok"}
}

func text(s string) llm.Block { return llm.Block{Type: llm.BlockText, Text: s} }

func TestProjectKey(t *testing.T) {
	// sha256("/home/u/proj") first 16 hex digits, as SPEC section 3 fixes.
	if got := ProjectKey("/home/u/proj"); len(got) != 16 || got != ProjectKey("/home/u/proj") {
		t.Fatalf("key %q", got)
	}
	if ProjectKey("/a") == ProjectKey("/b") {
		t.Fatal("different roots share a key")
	}
	if got, want := Dir("/h", "/a"), filepath.Join("/h", "projects", ProjectKey("/a"), "sessions"); got != want {
		t.Fatalf("Dir = %s, want %s", got, want)
	}
}

func TestWriteLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Meta{Cwd: "/p", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{text("<system-reminder>x</system-reminder>fix the test")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{text("reading"), call("t1")}},
		{Role: llm.RoleUser, Content: []llm.Block{result("t1")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{text("done")}},
	}
	for _, m := range msgs {
		w.Message(m)
	}
	w.Record("receipt", map[string]any{"tool": "read_file"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if s.Meta.ID != w.ID() || s.Meta.Cwd != "/p" || len(s.Messages) != 4 || s.Skipped != 0 || s.Repaired != 0 {
		t.Fatalf("loaded %+v", s)
	}
	list, err := List(dir)
	if err != nil || len(list) != 1 || list[0].Title != "fix the test" || list[0].Messages != 4 {
		t.Fatalf("list %+v %v", list, err)
	}
}

func TestResetReplacesHistory(t *testing.T) {
	dir := t.TempDir()
	w, _ := Create(dir, Meta{})
	w.Message(llm.UserText("one"))
	w.Message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{text("a")}})
	w.Record(KindReset, []llm.Message{llm.UserText("summary")})
	w.Message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{text("b")}})
	w.Close()
	s, _ := Load(w.Path())
	if len(s.Messages) != 2 || s.Messages[0].Text() != "summary" || s.Messages[1].Text() != "b" {
		t.Fatalf("got %+v", s.Messages)
	}
}

// A kill mid-write leaves a torn last line: it is skipped, the dangling call
// is answered, and appending after it stays readable.
func TestTornLineAndDanglingCall(t *testing.T) {
	dir := t.TempDir()
	w, _ := Create(dir, Meta{})
	w.Message(llm.UserText("go"))
	w.Message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{call("a"), call("b")}})
	w.Close()
	f, _ := os.OpenFile(w.Path(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"message","message":{"role":"user","content":[{"type":"tool_res`)
	f.Close()

	s, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if s.Skipped != 1 || s.Repaired != 2 {
		t.Fatalf("skipped %d repaired %d", s.Skipped, s.Repaired)
	}
	last := s.Messages[len(s.Messages)-1]
	if last.Role != llm.RoleUser || len(last.Content) != 2 || last.Content[0].ID != "a" || !last.Content[1].IsError {
		t.Fatalf("last %+v", last)
	}
	// Resume: append works and the file loads with the new record.
	w2, err := Append(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	w2.Message(last)
	w2.Message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{text("recovered")}})
	w2.Close()
	s2, _ := Load(w.Path())
	if s2.Skipped != 1 || s2.Repaired != 0 || s2.Messages[len(s2.Messages)-1].Text() != "recovered" {
		t.Fatalf("after resume: skipped %d repaired %d msgs %+v", s2.Skipped, s2.Repaired, s2.Messages)
	}
}

// Property: whatever prefix of a valid conversation survives (plus junk),
// Repair returns a valid history and never loses a text block.
func TestRepairProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 2000; iter++ {
		var msgs []llm.Message
		id := 0
		n := rng.Intn(8)
		for i := 0; i < n; i++ {
			msgs = append(msgs, llm.UserText(fmt.Sprintf("u%d", i)))
			k := rng.Intn(4)
			var calls []llm.Block
			a := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{text("a")}}
			if rng.Intn(2) == 0 {
				id = 0 // a server that numbers calls per answer: call_0 again (issue 12.8)
			}
			for j := 0; j < k; j++ {
				id++
				c := call(fmt.Sprintf("c%d", id))
				calls = append(calls, c)
				a.Content = append(a.Content, c)
			}
			msgs = append(msgs, a)
			if k > 0 {
				u := llm.Message{Role: llm.RoleUser}
				for _, c := range calls {
					if rng.Intn(5) > 0 {
						u.Content = append(u.Content, result(c.ID))
					}
				}
				rng.Shuffle(len(u.Content), func(x, y int) { u.Content[x], u.Content[y] = u.Content[y], u.Content[x] })
				if rng.Intn(6) == 0 {
					u.Content = append(u.Content, result("stray"))
				}
				msgs = append(msgs, u)
			}
		}
		// Cut at a random point, as a kill would.
		cut := 0
		if len(msgs) > 0 {
			cut = rng.Intn(len(msgs) + 1)
		}
		msgs = msgs[:cut]
		if rng.Intn(4) == 0 {
			msgs = append([]llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{text("orphan")}}}, msgs...)
		}
		texts := 0
		for _, m := range msgs {
			for _, b := range m.Content {
				if b.Type == llm.BlockText && b.Text != "orphan" {
					texts++
				}
			}
		}
		out, _ := Repair(msgs)
		if err := llm.ValidateHistory(out); err != nil { // the one validator of the neutral history
			t.Fatalf("iter %d: %v\nin: %+v\nout: %+v", iter, err, msgs, out)
		}
		got := 0
		for _, m := range out {
			for _, b := range m.Content {
				if b.Type == llm.BlockText {
					got++
				}
			}
		}
		if got != texts {
			t.Fatalf("iter %d: %d text blocks, want %d", iter, got, texts)
		}
	}
}

// Two writers (two hew processes) in one project never share a file.
func TestConcurrentSessions(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	paths := make([]string, 8)
	for i := range paths {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			w, err := Create(dir, Meta{})
			if err != nil {
				t.Error(err)
				return
			}
			for j := 0; j < 50; j++ {
				w.Message(llm.UserText(strings.Repeat("x", j)))
			}
			w.Close()
			paths[i] = w.Path()
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			t.Fatalf("two sessions share %s", p)
		}
		seen[p] = true
		s, err := Load(p)
		if err != nil || s.Skipped != 0 {
			t.Fatalf("%s: %v skipped %d", p, err, s.Skipped)
		}
	}
}
