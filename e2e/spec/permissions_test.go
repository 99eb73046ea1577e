package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decision is the one JSON line of `hew permissions check`.
type decision struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Source   string `json:"source"`
}

func (w *world) check(tool, input string, extra ...string) decision {
	w.t.Helper()
	r := w.hew(append([]string{"permissions", "check", "--trust-project", tool, input}, extra...)...)
	if r.code != 0 {
		w.t.Fatalf("permissions check %s %s %v: exit %d, want 0\n%s", tool, input, extra, r.code, r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1 {
		w.t.Fatalf("permissions check must print one JSON line:\n%s", r)
	}
	var d decision
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		w.t.Fatalf("permissions check output %q: %v", lines[0], err)
	}
	switch d.Decision {
	case "allow", "ask", "deny":
	default:
		w.t.Fatalf("decision %q is not allow|ask|deny", d.Decision)
	}
	if d.Reason == "" || d.Source == "" {
		w.t.Fatalf("decision without reason or source: %s", lines[0])
	}
	return d
}

// SPEC section 4, the modes table (auto's classifier column is exercised
// with a real session in TestAutoModeClassifier).
func TestModesTable(t *testing.T) {
	w := newWorld(t)
	w.write("src/a.go", "package a\n")
	const (
		read     = `{"file_path":"src/a.go"}`
		edit     = `{"file_path":"src/a.go","old_string":"a","new_string":"b"}`
		write    = `{"file_path":"src/new.go","content":"x"}`
		safeRO   = `{"command":"ls -la src"}`
		safeRW   = `{"command":"mkdir build"}`
		danger   = `{"command":"rm -rf src"}`
		fetchURL = `{"url":"https://example.com/page"}`
	)
	type row struct{ read, edit, write, safeRO, safeRW, danger, fetch, mcp string }
	for mode, want := range map[string]row{
		"default":           {"allow", "ask", "ask", "allow", "allow", "ask", "ask", "ask"},
		"plan":              {"allow", "deny", "deny", "allow", "deny", "deny", "ask", "ask"},
		"acceptEdits":       {"allow", "allow", "allow", "allow", "allow", "ask", "ask", "ask"},
		"bypassPermissions": {"allow", "allow", "allow", "allow", "allow", "allow", "allow", "allow"},
		"dontAsk":           {"allow", "deny", "deny", "allow", "allow", "deny", "deny", "deny"},
		// auto: reads and safe shell pass the static screen.
		"auto": {"allow", "", "", "allow", "allow", "", "", ""},
	} {
		t.Run(mode, func(t *testing.T) {
			for _, c := range []struct{ tool, input, want string }{
				{"read_file", read, want.read},
				{"list_files", `{"pattern":"**/*.go"}`, want.read},
				{"grep_search", `{"pattern":"package"}`, want.read},
				{"edit_file", edit, want.edit},
				{"write_file", write, want.write},
				{"run_shell", safeRO, want.safeRO},
				{"run_shell", safeRW, want.safeRW},
				{"run_shell", danger, want.danger},
				{"web_fetch", fetchURL, want.fetch},
				{"mcp__srv__do", `{}`, want.mcp},
			} {
				if c.want == "" {
					continue
				}
				if d := w.check(c.tool, c.input, "--mode", mode); d.Decision != c.want {
					t.Errorf("%s %s in %s: %s (%s), want %s", c.tool, c.input, mode, d.Decision, d.Reason, c.want)
				}
			}
		})
	}
}

// SPEC section 4: rule syntax, aliases, prefixes, domain:, mcp__SERVER, path
// globs, the decision order and settings merge (user < project < local,
// lists concatenated).
func TestRules(t *testing.T) {
	w := newWorld(t)
	w.write("src/a.go", "package a\n")
	w.write(filepath.Join(w.home, "settings.json"), `{"permissions":{"allow":["Bash(make:*)"],"deny":["Bash(curl:*)"]}}`)
	w.write(".hew/settings.json", `{"permissions":{
	  "allow":["Bash(git log:*)","run_shell(npm test*)","Edit(src/**)","Write(docs/*.md)","WebFetch(domain:example.com)","mcp__good","Read(/etc/hostname)","Grep","Glob"],
	  "ask":["Bash(git push:*)","Read(notes/**)"],
	  "deny":["Bash(rm -rf*)","Read(secrets/**)","Write(*.lock)","mcp__bad__drop","Edit(src/gen/**)","WebFetch(domain:evil.test)","run_shell(git log --all*)"]}}`)
	w.write(".hew/settings.local.json", `{"permissions":{"deny":["Edit(src/local/**)"],"allow":["Bash(go vet:*)"]}}`)
	for _, c := range []struct {
		tool, input, mode, want string
		source                  string // substring of source, "" = any
	}{
		// run_shell: exact, `:*` and `*` prefixes; each simple command judged.
		{"run_shell", `{"command":"git log --oneline"}`, "plan", "allow", "rule"},
		{"run_shell", `{"command":"git log"}`, "plan", "allow", "rule"},
		{"run_shell", `{"command":"git log | head -5"}`, "plan", "allow", ""},
		{"run_shell", `{"command":"git log; rm -rf x"}`, "default", "deny", "rule"},
		{"run_shell", `{"command":"npm test -- --watch"}`, "default", "allow", "rule"},
		{"run_shell", `{"command":"npm run build"}`, "plan", "deny", "mode"},
		// allow rules rank above the mode, but plan mode's denials rank
		// above allow rules (SPEC order).
		{"run_shell", `{"command":"npm test"}`, "default", "allow", "rule"},
		{"run_shell", `{"command":"npm test"}`, "plan", "deny", ""},
		{"edit_file", `{"file_path":"src/x.go","old_string":"a","new_string":"b"}`, "default", "allow", "rule"},
		{"edit_file", `{"file_path":"src/x.go","old_string":"a","new_string":"b"}`, "plan", "deny", "plan"},
		{"run_shell", `{"command":"git push origin main"}`, "bypassPermissions", "ask", "rule"},
		// deny beats allow on overlapping rules (git log --all matches both).
		{"run_shell", `{"command":"git log --all"}`, "default", "deny", "rule"},
		// a deny holds in every mode, bypassPermissions included.
		{"run_shell", `{"command":"rm -rf build"}`, "bypassPermissions", "deny", "rule"},
		{"run_shell", `{"command":"rm -rf build"}`, "auto", "deny", "rule"},
		// user settings are merged in; local settings too.
		{"run_shell", `{"command":"make all"}`, "default", "allow", "settings.json"},
		{"run_shell", `{"command":"curl https://example.com"}`, "bypassPermissions", "deny", "settings.json"},
		{"run_shell", `{"command":"go vet ./..."}`, "default", "allow", "settings.local.json"},
		{"edit_file", `{"file_path":"src/local/x.go","old_string":"a","new_string":"b"}`, "bypassPermissions", "deny", "settings.local.json"},
		// file tools: gitignore-style globs relative to the root; aliases.
		{"edit_file", `{"file_path":"src/deep/x.go","old_string":"a","new_string":"b"}`, "default", "allow", "rule"},
		{"edit_file", `{"file_path":"lib/x.go","old_string":"a","new_string":"b"}`, "default", "ask", ""},
		{"edit_file", `{"file_path":"src/gen/x.go","old_string":"a","new_string":"b"}`, "bypassPermissions", "deny", "rule"},
		{"write_file", `{"file_path":"docs/intro.md","content":"x"}`, "default", "allow", "rule"},
		{"write_file", `{"file_path":"go.lock","content":"x"}`, "bypassPermissions", "deny", "rule"},
		{"write_file", `{"file_path":"sub/dir/x.lock","content":"x"}`, "bypassPermissions", "deny", "rule"},
		{"read_file", `{"file_path":"secrets/key.txt"}`, "bypassPermissions", "deny", "rule"},
		{"read_file", `{"file_path":"notes/todo.md"}`, "default", "ask", "rule"},
		{"read_file", `{"file_path":"/etc/hostname"}`, "default", "allow", "rule"},
		// web_fetch: domain:HOST.
		{"web_fetch", `{"url":"https://example.com/a"}`, "default", "allow", "rule"},
		{"web_fetch", `{"url":"https://other.test/a"}`, "default", "ask", ""},
		{"web_fetch", `{"url":"https://evil.test/a"}`, "bypassPermissions", "deny", "rule"},
		// MCP: mcp__SERVER covers every tool of the server.
		{"mcp__good__anything", `{}`, "default", "allow", "rule"},
		{"mcp__bad__drop", `{}`, "bypassPermissions", "deny", "rule"},
		{"mcp__bad__other", `{}`, "default", "ask", ""},
		// Grep/Glob aliases.
		{"grep_search", `{"pattern":"x","path":"src"}`, "default", "allow", ""},
	} {
		d := w.check(c.tool, c.input, "--mode", c.mode)
		if d.Decision != c.want || (c.source != "" && !strings.Contains(d.Source+" "+d.Reason, c.source)) {
			t.Errorf("%s %s --mode %s: %s (source %q, reason %q), want %s from %q", c.tool, c.input, c.mode, d.Decision, d.Source, d.Reason, c.want, c.source)
		}
	}
}

// --allowed-tools / --disallowed-tools are rules for this run.
func TestRuleFlags(t *testing.T) {
	w := newWorld(t)
	if d := w.check("run_shell", `{"command":"ls"}`, "--mode", "bypassPermissions", "--disallowed-tools", "Bash(ls*)"); d.Decision != "deny" {
		t.Errorf("--disallowed-tools Bash(ls*): %v", d)
	}
	if d := w.check("write_file", `{"file_path":"lib/x.txt","content":"x"}`, "--allowed-tools", "Write(lib/**),Read"); d.Decision != "allow" {
		t.Errorf("--allowed-tools Write(lib/**): %v", d)
	}
	// The same flags reach a session.
	sc := `{"turns":[{"text":"w","tool_calls":[{"name":"write_file","input":{"file_path":"lib/x.txt","content":"made"}}]},{"text":"ok"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "json", "--allowed-tools", "Write(lib/**)", "go")
	if res := jsonResult(t, r); len(res["permission_denials"].([]any)) != 0 || w.read("lib/x.txt") != "made" {
		t.Fatalf("--allowed-tools did not allow the write in a session\n%s", r)
	}
	sc = `{"turns":[{"text":"r","tool_calls":[{"name":"run_shell","input":{"command":"echo hi > y.txt"}}]},{"text":"ok"}]}`
	r = w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--yolo", "--output-format", "json", "--disallowed-tools", "run_shell(echo*)", "go")
	if res := jsonResult(t, r); len(res["permission_denials"].([]any)) != 1 {
		t.Fatalf("--disallowed-tools did not deny in bypassPermissions\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(w.proj, "y.txt")); err == nil {
		t.Fatal("a denied run_shell ran")
	}
}

// Paths outside the root (after .. and symlinks) need additionalDirectories
// or an explicit allow.
func TestOutsideRoot(t *testing.T) {
	w := newWorld(t)
	outside := filepath.Join(filepath.Dir(w.proj), "outside")
	extra := filepath.Join(filepath.Dir(w.proj), "extra")
	w.write(filepath.Join(outside, "f.txt"), "x")
	w.write(filepath.Join(extra, "f.txt"), "x")
	if err := os.Symlink(outside, filepath.Join(w.proj, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, input, mode, want string }{
		{"read_file", `{"file_path":"../outside/f.txt"}`, "default", "ask"},
		{"read_file", `{"file_path":"src/../../outside/f.txt"}`, "default", "ask"},
		{"read_file", `{"file_path":"link/f.txt"}`, "default", "ask"},
		{"read_file", `{"file_path":"` + filepath.Join(outside, "f.txt") + `"}`, "default", "ask"},
		{"write_file", `{"file_path":"link/new.txt","content":"x"}`, "acceptEdits", "ask"},
		{"edit_file", `{"file_path":"../outside/f.txt","old_string":"x","new_string":"y"}`, "acceptEdits", "ask"},
		{"list_files", `{"path":"../outside"}`, "default", "ask"},
		{"grep_search", `{"pattern":"x","path":"link"}`, "default", "ask"},
		{"read_file", `{"file_path":"` + filepath.Join(extra, "f.txt") + `"}`, "default", "ask"},
	} {
		if d := w.check(c.tool, c.input, "--mode", c.mode); d.Decision != c.want {
			t.Errorf("before additionalDirectories: %s %s --mode %s: %s (%s), want %s", c.tool, c.input, c.mode, d.Decision, d.Reason, c.want)
		}
	}
	w.write(".hew/settings.json", `{"permissions":{"additionalDirectories":["`+extra+`"]}}`)
	for _, c := range []struct{ tool, input, mode, want string }{
		{"read_file", `{"file_path":"` + filepath.Join(extra, "f.txt") + `"}`, "default", "allow"},
		{"write_file", `{"file_path":"` + filepath.Join(extra, "g.txt") + `","content":"x"}`, "acceptEdits", "allow"},
		{"read_file", `{"file_path":"../outside/f.txt"}`, "default", "ask"},
	} {
		if d := w.check(c.tool, c.input, "--mode", c.mode); d.Decision != c.want {
			t.Errorf("with additionalDirectories: %s %s --mode %s: %s (%s), want %s", c.tool, c.input, c.mode, d.Decision, d.Reason, c.want)
		}
	}
	w.write(".hew/settings.json", `{"permissions":{"allow":["Read(`+outside+`/**)"]}}`)
	if d := w.check("read_file", `{"file_path":"../outside/f.txt"}`); d.Decision != "allow" {
		t.Errorf("explicit allow of an outside path: %v", d)
	}
}

// A session decides as `permissions check` does: a deny rule holds under
// --yolo and the model gets "Action denied: …" back, then the loop goes on.
func TestSessionDenyBeatsBypass(t *testing.T) {
	w := newWorld(t)
	w.write("demo/keep.txt", "keep\n")
	w.write(".hew/settings.json", `{"permissions":{"deny":["run_shell(rm -rf*)"]}}`)
	if d := w.check("run_shell", `{"command":"rm -rf demo"}`, "--mode", "bypassPermissions"); d.Decision != "deny" {
		t.Fatalf("permissions check: %v", d)
	}
	sc := `{"turns":[{"text":"deleting","tool_calls":[{"name":"run_shell","input":{"command":"rm -rf demo"}}]},{"text":"gave up"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	res := lastResult(t, r)
	if res.str("stop_reason") != "completed" || res.str("result") != "gave up" {
		t.Fatalf("the loop did not continue after the denial\n%s", r)
	}
	tr := ofType(events(t, r), "tool_result")
	if len(tr) != 1 || tr[0]["is_error"] != true || !strings.HasPrefix(tr[0].str("content"), "Action denied") {
		t.Fatalf("the denial must reach the model as \"Action denied: …\"\n%s", r)
	}
	if w.read("demo/keep.txt") != "keep\n" {
		t.Fatal("the denied command ran")
	}
}

// auto mode: the classifier (scenario side answer) decides edits; an
// unparsable verdict denies; safe shell never needs it.
func TestAutoModeClassifier(t *testing.T) {
	for _, c := range []struct {
		name, verdict, call string
		denied              bool
	}{
		{"allow verdict", `{"decision":"allow","reason":"fine"}`, `{"name":"write_file","input":{"file_path":"n.txt","content":"x"}}`, false},
		{"deny verdict", `{"decision":"deny","reason":"not ok"}`, `{"name":"write_file","input":{"file_path":"n.txt","content":"x"}}`, true},
		{"unparsable verdict", `certainly not JSON`, `{"name":"write_file","input":{"file_path":"n.txt","content":"x"}}`, true},
		{"unparsable verdict, dangerous shell", `???`, `{"name":"run_shell","input":{"command":"rm -rf sub"}}`, true},
		{"safe shell skips the classifier", `???`, `{"name":"run_shell","input":{"command":"ls"}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			w.write("sub/x", "x")
			side, _ := json.Marshal(c.verdict)
			sc := `{"turns":[{"text":"t","tool_calls":[` + c.call + `]},{"text":"end"}],"side":{"classifier":` + string(side) + `}}`
			r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--auto", "--output-format", "json", "go")
			res := jsonResult(t, r)
			n := len(res["permission_denials"].([]any))
			if (n == 1) != c.denied || n > 1 {
				t.Fatalf("denials %d, want denied=%v\n%s", n, c.denied, r)
			}
		})
	}
}

// Issue 5's checkpoint: deny rule for rm -rf, danger analysis for rmdir
// (asks → denied headless), both denials listed, the directory survives,
// the loop completes.
func TestBrakesCheckpoint(t *testing.T) {
	w := newWorld(t)
	w.write("demo/file.txt", "keep\n")
	w.write(".hew/settings.json", `{"permissions":{"deny":["run_shell(rm -rf*)"]}}`)
	sc := `{"turns":[
	 {"text":"listing","tool_calls":[{"name":"list_files","input":{"path":"demo"}}]},
	 {"text":"deleting","tool_calls":[{"name":"run_shell","input":{"command":"rm -rf demo"}}]},
	 {"text":"trying rmdir","tool_calls":[{"name":"run_shell","input":{"command":"rmdir demo"}}]},
	 {"text":"I could not delete demo: both attempts were denied."}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "json", "delete the demo directory")
	res := jsonResult(t, r)
	if r.code != 0 || res.str("stop_reason") != "completed" {
		t.Fatalf("want completed\n%s", r)
	}
	pd, _ := res["permission_denials"].([]any)
	if len(pd) != 2 {
		t.Fatalf("want both denials listed, got %d\n%s", len(pd), r)
	}
	if w.read("demo/file.txt") != "keep\n" {
		t.Fatal("demo was changed")
	}
	if d := w.check("run_shell", `{"command":"rmdir demo"}`); d.Decision != "ask" || !strings.HasPrefix(d.Source, "danger") {
		t.Fatalf("rmdir must be caught by the danger analysis: %+v", d)
	}
}
