package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SPEC section 7: the example scenario, played by the in-process mock and
// by hew mock-server over both protocols, gives the same run.
func TestSpecExampleScenario(t *testing.T) {
	const example = `{"turns": [
	  {"text": "I'll read it.", "tool_calls": [{"name": "read_file", "input": {"file_path": "greeting.txt"}}]},
	  {"text": "It says hello."}
	 ],
	 "side": {"compact": "summary", "goal_eval": "{\"ok\": true, \"reason\": \"done\"}", "classifier": "allow", "memory_recall": "none"}}`
	for _, via := range []string{"mock", "anthropic", "openai"} {
		t.Run(via, func(t *testing.T) {
			w := newWorld(t)
			w.write("greeting.txt", "hello\n")
			var env []string
			switch via {
			case "mock":
				env = append(w.mockEnv(example), "HEW_PROVIDER=mock")
			case "anthropic":
				env = w.startMock(example).anthropicEnv()
			case "openai":
				env = w.startMock(example).openaiEnv()
			}
			r := w.hewEnv(env, "-p", "--output-format", "stream-json", "what does greeting.txt say?")
			res := lastResult(t, r)
			if r.code != 0 || res.str("result") != "It says hello." || res.str("stop_reason") != "completed" {
				t.Fatalf("unexpected run\n%s", r)
			}
			tr := ofType(events(t, r), "tool_result")
			if len(tr) != 1 || !strings.Contains(tr[0].str("content"), "hello") {
				t.Fatalf("read_file result missing\n%s", r)
			}
		})
	}
}

// Side requests take their answer from "side": the goal evaluator decides
// goal_met / goal_impossible (SPEC sections 1 and 6).
func TestGoalSideAnswers(t *testing.T) {
	for _, c := range []struct {
		name, eval, stop string
		ok               bool
	}{
		{"met", `{"ok": true, "reason": "the file exists"}`, "goal_met", true},
		{"impossible", `{"ok": false, "impossible": true, "reason": "cannot be done"}`, "goal_impossible", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			sc := `{"turns":[{"text":"working"},{"text":"still working"},{"text":"more"}],"side":{"goal_eval":` + quote(c.eval) + `}}`
			r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "json", "--goal", "the file exists", "go")
			res := jsonResult(t, r)
			if res.str("stop_reason") != c.stop {
				t.Fatalf("stop_reason %q, want %q\n%s", res.str("stop_reason"), c.stop, r)
			}
			if (r.code == 0) != c.ok {
				t.Fatalf("exit %d for %s\n%s", r.code, c.stop, r)
			}
		})
	}
}

// Without a script, --mock answers the plain intents with real tool calls.
func TestMockIntents(t *testing.T) {
	w := newWorld(t)
	w.write("notes.txt", "hello world\nneedle here\n")
	for _, c := range []struct {
		prompt, tool, inResult string
	}{
		{"read notes.txt", "read_file", "hello world"},
		{"list files", "list_files", "notes.txt"},
		{"search needle", "grep_search", "notes.txt"},
		{"run `echo intent-ran`", "run_shell", "intent-ran"},
		{`replace "hello" with "goodbye" in notes.txt`, "edit_file", ""},
	} {
		r := w.hew("-p", "--mock", "--yolo", "--output-format", "stream-json", c.prompt)
		if r.code != 0 {
			t.Fatalf("%q: exit %d\n%s", c.prompt, r.code, r)
		}
		var found bool
		for _, u := range ofType(events(t, r), "tool_use") {
			found = found || u.str("name") == c.tool
		}
		if !found {
			t.Errorf("%q: no %s call\n%s", c.prompt, c.tool, r)
		}
		var text string
		for _, e := range ofType(events(t, r), "tool_result") {
			text += e.str("content")
		}
		if !strings.Contains(text, c.inResult) {
			t.Errorf("%q: results lack %q\n%s", c.prompt, c.inResult, r)
		}
	}
	if got := w.read("notes.txt"); got != "goodbye world\nneedle here\n" {
		t.Fatalf("replace intent left %q", got)
	}
}

// Large tool results are persisted whole under KEY/tool-results/ and the
// model sees a shortened preview naming the file (SPEC section 3).
func TestToolResultsPersisted(t *testing.T) {
	w := newWorld(t)
	var b strings.Builder
	for i := 0; b.Len() < 80_000; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", 60))
		b.WriteString("\n")
	}
	w.write("big.txt", b.String())
	sc := `{"turns":[{"text":"t","tool_calls":[{"name":"run_shell","input":{"command":"cat big.txt; echo END-OF-BIG"}}]},{"text":"end"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	dir := filepath.Join(w.home, "projects", projectKey(w.proj), "tool-results")
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("nothing persisted under %s (%v)", dir, err)
	}
	var whole bool
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		whole = whole || (strings.Contains(string(data), "END-OF-BIG") && len(data) >= b.Len())
	}
	if !whole {
		t.Fatalf("no persisted file holds the whole output")
	}
	// What the model got (recorded in the session) names where the rest is.
	id := lastResult(t, r).str("session_id")
	rec := firstUserText(t, filepath.Join(w.home, "projects", projectKey(w.proj), "sessions", id+".jsonl"))
	if !strings.Contains(rec, "tool-results") {
		t.Fatalf("the shortened result does not name the persisted file")
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// Side answer "compact": a resumed session over the (settings-lowered)
// context window is compacted at the turn boundary with the scenario's
// summary; the session file keeps the full history and the summary.
func TestCompactSideAnswer(t *testing.T) {
	w := newWorld(t)
	w.write(".hew/settings.json", `{"contextWindow":12000}`)
	var b strings.Builder
	words := []string{"alpha", "beta", "gamma", "delta", "kappa", "omega", "sigma", "zeta"}
	for i := 0; i < 7000; i++ {
		b.WriteString(words[(i*7+i/3)%len(words)])
		b.WriteString(strings.Repeat("x", i%5))
		b.WriteString(" ")
		if i%12 == 11 {
			b.WriteString("\n")
		}
	}
	b.WriteString("\nMARK-END-OF-BIG\n")
	w.write("big.txt", b.String())
	const side = `"side":{"compact":"MARK-SUMMARY-FROM-SIDE: the user asked to read big.txt"}`
	sc1 := `{"turns":[{"text":"reading","tool_calls":[{"name":"read_file","input":{"file_path":"big.txt"}}]},{"text":"read it"}],` + side + `}`
	r := w.hewEnv(w.mockEnv(sc1), "-p", "--mock", "--output-format", "json", "read big.txt please")
	id := jsonResult(t, r).str("session_id")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	sc2 := `{"turns":[{"text":"second answer"}],` + side + `}`
	r = w.hewEnv(w.mockEnv(sc2), "-p", "--mock", "-c", "--output-format", "json", "and now?")
	if res := jsonResult(t, r); r.code != 0 || res.str("result") != "second answer" {
		t.Fatalf("resumed run failed\n%s", r)
	}
	rec := firstUserText(t, filepath.Join(w.home, "projects", projectKey(w.proj), "sessions", id+".jsonl"))
	if !strings.Contains(rec, "MARK-SUMMARY-FROM-SIDE") {
		t.Fatalf("no compaction with the scenario's summary recorded in the session")
	}
	if !strings.Contains(rec, "MARK-END-OF-BIG") {
		t.Fatalf("the pre-compaction history is gone from the session file")
	}
}
