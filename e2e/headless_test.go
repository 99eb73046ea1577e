package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A scripted two-step edit in a git repository: the event stream is SPEC
// section 6's, the file really changes, the session is recorded under
// HEW_HOME, and nothing else appears in the project.
func TestStreamJSONEditsFileInGitRepo(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, true)
	s.write("greeting.txt", "hello world\n")
	s.git("add", ".")
	s.git("commit", "-qm", "init")
	sc := s.scenario("edit.json", `{"turns": [
 {"text": "I'll read it.", "tool_calls": [{"name": "read_file", "input": {"file_path": "greeting.txt"}}]},
 {"text": "Now the edit.", "tool_calls": [{"name": "edit_file", "input": {"file_path": "greeting.txt", "old_string": "hello", "new_string": "goodbye"}}]},
 {"text": "Done: it now says goodbye."}
]}`)
	r := s.run([]string{"HEW_MOCK_SCRIPT=" + sc}, "-p", "--mock", "--accept-edits", "--output-format", "stream-json", "change hello to goodbye in greeting.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	if len(evs) < 3 {
		t.Fatalf("too few events:\n%s", r.stdout)
	}
	first, last := evs[0], evs[len(evs)-1]
	if first["type"] != "init" || first["model"] != "mock" || first["permission_mode"] != "acceptEdits" {
		t.Errorf("first event = %v, want init with model mock and mode acceptEdits", first)
	}
	sid, _ := first["session_id"].(string)
	if sid == "" {
		t.Errorf("init has no session_id: %v", first)
	}
	tools, _ := first["tools"].([]any)
	if !containsAny(tools, "read_file") || !containsAny(tools, "edit_file") || !containsAny(tools, "run_shell") {
		t.Errorf("init tools = %v", tools)
	}
	if last["type"] != "result" || last["stop_reason"] != "completed" || last["session_id"] != sid {
		t.Errorf("last event = %v, want a completed result for session %s", last, sid)
	}
	if n, _ := last["num_turns"].(float64); n != 3 {
		t.Errorf("num_turns = %v, want 3", last["num_turns"])
	}
	if !strings.Contains(last["result"].(string), "goodbye") {
		t.Errorf("result text = %q", last["result"])
	}
	usage, _ := last["usage"].(map[string]any)
	for _, k := range []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"} {
		if _, ok := usage[k]; !ok {
			t.Errorf("usage lacks %s: %v", k, usage)
		}
	}
	if d, _ := last["permission_denials"].([]any); len(d) != 0 {
		t.Errorf("permission_denials = %v, want none", d)
	}
	uses, results := ofType(evs, "tool_use"), ofType(evs, "tool_result")
	if len(uses) != 2 || len(results) != 2 {
		t.Fatalf("%d tool_use and %d tool_result events, want 2 each:\n%s", len(uses), len(results), r.stdout)
	}
	for i, name := range []string{"read_file", "edit_file"} {
		if uses[i]["name"] != name || results[i]["id"] != uses[i]["id"] || results[i]["is_error"] != false {
			t.Errorf("call %d: use %v result %v", i, uses[i], results[i])
		}
	}
	if len(ofType(evs, "text")) == 0 {
		t.Error("no text events")
	}

	if got := s.read("greeting.txt"); got != "goodbye world\n" {
		t.Errorf("greeting.txt = %q, want the edit applied", got)
	}
	// hew wrote nothing into the project but the edit itself.
	if st := s.git("status", "--porcelain"); strings.TrimSpace(st) != "M greeting.txt" {
		t.Errorf("git status = %q, want only greeting.txt modified", st)
	}
	files := s.sessionFiles()
	if len(files) != 1 || filepath.Base(files[0]) != sid+".jsonl" {
		t.Errorf("session files = %v, want one named %s.jsonl", files, sid)
	}
	if entries, _ := os.ReadDir(s.user); len(entries) != 0 {
		t.Errorf("hew wrote into HOME: %v", entries)
	}
}

// Without a mode that allows edits, headless denies the edit instead of
// asking, lists it, and the model gets on with it.
func TestHeadlessDeniesWhatWouldAsk(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	s.write("greeting.txt", "hello\n")
	sc := s.scenario("deny.json", `{"turns": [
 {"text": "", "tool_calls": [{"name": "write_file", "input": {"file_path": "greeting.txt", "content": "overwritten\n"}}]},
 {"text": "I could not write it."}
]}`)
	r := s.run([]string{"HEW_MOCK_SCRIPT=" + sc}, "-p", "--mock", "--output-format", "json", "overwrite greeting.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1 {
		t.Fatalf("json format printed %d lines, want only the result:\n%s", len(lines), r.stdout)
	}
	var res struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Denials    []struct {
			Tool   string `json:"tool"`
			Reason string `json:"reason"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &res); err != nil {
		t.Fatal(err)
	}
	if res.Type != "result" || res.StopReason != "completed" || len(res.Denials) != 1 || res.Denials[0].Tool != "write_file" {
		t.Errorf("result = %+v", res)
	}
	if got := s.read("greeting.txt"); got != "hello\n" {
		t.Errorf("greeting.txt = %q: a denied write happened", got)
	}
}

// The README's first command: the built-in offline model reads a file.
func TestMockReadsFileWithoutScript(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	s.write("greeting.txt", "hello from the demo\n")
	r := s.run(nil, "--mock", "-p", "read greeting.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "hello from the demo") {
		t.Errorf("stdout does not show the file's content:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "read_file") {
		t.Errorf("stderr does not show the tool call:\n%s", r.stderr)
	}
}

// A prompt piped on stdin runs one task and exits, like -p.
func TestPipedPromptRunsOnce(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	s.write("notes.txt", "piped prompt works\n")
	r := s.runStdin(nil, "read notes.txt\n", "--mock")
	if r.code != 0 || !strings.Contains(r.stdout, "piped prompt works") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	loop := s.scenario("loop.json", `{"turns": [
 {"tool_calls": [{"name": "list_files", "input": {}}]},
 {"tool_calls": [{"name": "list_files", "input": {"pattern": "*.txt"}}]},
 {"tool_calls": [{"name": "list_files", "input": {"pattern": "*.md"}}]},
 {"text": "never reached"}
]}`)
	for _, tc := range []struct {
		name     string
		env      []string
		args     []string
		code     int
		inStderr []string
	}{
		{"missing key", nil, []string{"-p", "hi"}, 2, []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AGENT_API_KEY", "HEW_PROVIDER", "--mock"}},
		{"bad flag", nil, []string{"--no-such-flag"}, 2, []string{"unknown flag"}},
		{"bad mode", nil, []string{"--mock", "--permission-mode", "sometimes", "-p", "hi"}, 2, []string{"unknown permission mode"}},
		{"max turns", []string{"HEW_MOCK_SCRIPT=" + loop}, []string{"--mock", "-p", "--max-turns", "2", "--output-format", "json", "list everything"}, 3, nil},
		{"max budget", []string{"HEW_MOCK_SCRIPT=" + loop}, []string{"--mock", "-p", "--max-budget-tokens", "10", "--output-format", "json", "list everything"}, 3, nil},
		{"completed", nil, []string{"--mock", "-p", "list files"}, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.run(tc.env, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, w := range tc.inStderr {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if want := map[string]string{"max turns": "max_turns", "max budget": "max_budget"}[tc.name]; want != "" && !strings.Contains(r.stdout, `"stop_reason":"`+want+`"`) {
				t.Errorf("result does not say %s:\n%s", want, r.stdout)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	r := s.run(nil, "--version")
	if r.code != 0 || !regexp.MustCompile(`^hew \S+`).MatchString(r.stdout) {
		t.Errorf("--version: exit %d, %q", r.code, r.stdout)
	}
	if entries, _ := os.ReadDir(s.home); len(entries) != 0 {
		t.Errorf("--version created state: %v", entries)
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"sessions", "--help"}, {"mcp", "--help"}, {"permissions", "--help"},
		{"mock-server", "--help"}, {"doctor", "--help"}, {"memory", "--help"}, {"skills", "--help"}, {"help", "sessions"}} {
		r := s.run(nil, args...)
		if r.code != 0 || !strings.Contains(strings.ToLower(r.stdout), "usage") {
			t.Errorf("hew %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

func containsAny(xs []any, want string) bool {
	for _, x := range xs {
		if x == want {
			return true
		}
	}
	return false
}

// Commands the model runs do not see hew's model credentials.
func TestShellDoesNotSeeModelKey(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	r := s.run([]string{"ANTHROPIC_API_KEY=sk-secret-e2e", "SOME_OTHER_VAR=visible-e2e"}, "--mock", "-p", "--yolo", "--output-format", "stream-json", "run `env`")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := ofType(events(t, r.stdout), "tool_result")
	if len(res) != 1 {
		t.Fatalf("tool results: %v", res)
	}
	out := res[0]["content"].(string)
	if strings.Contains(out, "sk-secret-e2e") || !strings.Contains(out, "visible-e2e") {
		t.Errorf("env output:\n%s", out)
	}
}
