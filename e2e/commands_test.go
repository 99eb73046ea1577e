package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/testenv"
)

// hew permissions check decides with this directory's settings, as a session would.
func TestPermissionsCheck(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	s.write(".hew/settings.json", `{"permissions": {"deny": ["run_shell(rm -rf*)"], "allow": ["run_shell(npm test*)"]}}`)
	for _, tc := range []struct {
		args     []string
		decision string
		source   string
	}{
		{[]string{"run_shell", `{"command":"rm -rf demo"}`}, "deny", ".hew/settings.json"},
		{[]string{"run_shell", `{"command":"rm -rf demo"}`, "--mode", "bypassPermissions"}, "deny", ".hew/settings.json"},
		{[]string{"run_shell", `{"command":"npm test -- --watch=false"}`}, "allow", "rule"},
		{[]string{"read_file", `{"file_path":"README.md"}`}, "allow", ""},
		{[]string{"edit_file", `{"file_path":"a.go","old_string":"x","new_string":"y"}`}, "ask", ""},
		{[]string{"edit_file", `{"file_path":"a.go","old_string":"x","new_string":"y"}`, "--mode", "acceptEdits"}, "allow", "acceptEdits"},
		{[]string{"write_file", `{"file_path":"a.go","content":"x"}`, "--mode", "plan"}, "deny", "plan"},
	} {
		r := s.run(nil, append([]string{"permissions", "check", "--trust-project"}, tc.args...)...)
		if r.code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, r.code, r.stderr)
			continue
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		var v struct{ Decision, Reason, Source string }
		if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &v) != nil {
			t.Errorf("%v: want one JSON line, got %q", tc.args, r.stdout)
			continue
		}
		if v.Decision != tc.decision || !strings.Contains(v.Source+" "+v.Reason, tc.source) || v.Reason == "" {
			t.Errorf("%v: got %+v, want decision %s naming %q", tc.args, v, tc.decision, tc.source)
		}
	}
	if r := s.run(nil, "permissions", "check", "run_shell", "not json"); r.code != 2 {
		t.Errorf("invalid JSON: exit %d, want 2", r.code)
	}
}

// Sessions made by runs show up in `hew sessions`, and can be removed.
func TestSessionsCommand(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	s.write("a.txt", "alpha\n")
	r := s.run(nil, "--mock", "-p", "--output-format", "json", "read a.txt")
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.SessionID == "" {
		t.Fatalf("result %q: %v", r.stdout, err)
	}
	list := s.run(nil, "sessions", "list")
	if list.code != 0 || !strings.Contains(list.stdout, res.SessionID) || !strings.Contains(list.stdout, "read a.txt") {
		t.Errorf("sessions list: exit %d\n%s%s", list.code, list.stdout, list.stderr)
	}
	show := s.run(nil, "sessions", "show", res.SessionID)
	if show.code != 0 || !strings.Contains(show.stdout, "alpha") {
		t.Errorf("sessions show: exit %d\n%s%s", show.code, show.stdout, show.stderr)
	}
	if rm := s.run(nil, "sessions", "rm", res.SessionID); rm.code != 0 {
		t.Errorf("sessions rm: exit %d %s", rm.code, rm.stderr)
	}
	if n := len(s.sessionFiles()); n != 0 {
		t.Errorf("%d session files left after rm", n)
	}
	if r := s.run(nil, "--resume", res.SessionID, "--mock", "-p", "hi"); r.code != 2 {
		t.Errorf("--resume of a removed session: exit %d, want 2", r.code)
	}
}

// --goal keeps going until the evaluator (a side request) says the goal is met.
func TestGoal(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	for _, tc := range []struct {
		verdict, stop string
		code          int
	}{
		{`{\"ok\": true, \"reason\": \"the file exists\"}`, "goal_met", 0},
		{`{\"ok\": false, \"impossible\": true, \"reason\": \"contradiction\"}`, "goal_impossible", 1},
	} {
		sc := s.scenario("goal.json", `{"turns": [{"text": "Working on it."}], "side": {"goal_eval": "`+tc.verdict+`"}}`)
		r := s.run([]string{"HEW_MOCK_SCRIPT=" + sc}, "--mock", "-p", "--output-format", "json", "--goal", "notes.txt exists", "make notes")
		if r.code != tc.code || !strings.Contains(r.stdout, `"stop_reason":"`+tc.stop+`"`) {
			t.Errorf("verdict %s: exit %d\n%s%s", tc.verdict, r.code, r.stdout, r.stderr)
		}
	}
}

// The real HTTP clients against `hew mock-server`, with the base URL
// conventions of SPEC section 2.
func TestAgainstMockServer(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	s.write("greeting.txt", "hello over http\n")
	sc := s.scenario("http.json", `{"turns": [
 {"text": "I'll read it.", "tool_calls": [{"name": "read_file", "input": {"file_path": "greeting.txt"}}]},
 {"text": "It says hello over http."}
]}`)
	for _, tc := range []struct {
		name string
		env  func(addr string) []string
	}{
		{"anthropic", func(addr string) []string {
			return []string{"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + addr}
		}},
		{"openai", func(addr string) []string {
			return []string{"OPENAI_API_KEY=test", "OPENAI_BASE_URL=" + addr + "/v1"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, stop := startMockServer(t, s, sc)
			defer stop()
			r := s.run(tc.env(addr), "-p", "--model", "mock", "--output-format", "stream-json", "read greeting.txt")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			evs := events(t, r.stdout)
			last := evs[len(evs)-1]
			if last["stop_reason"] != "completed" || !strings.Contains(last["result"].(string), "hello over http") {
				t.Errorf("result = %v", last)
			}
			res := ofType(evs, "tool_result")
			if len(res) != 1 || !strings.Contains(res[0]["content"].(string), "hello over http") {
				t.Errorf("tool results = %v", res)
			}
		})
	}
}

// startMockServer runs `hew mock-server` and returns its address.
func startMockServer(t *testing.T, s *sandbox, scenario string) (string, func()) {
	t.Helper()
	cmd := s.cmd(nil, "mock-server", "--scenario", scenario, "--addr", "127.0.0.1:0", "--quiet")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	lines := make(chan string, 1)
	go func() {
		br := bufio.NewReader(out)
		l, _ := br.ReadString('\n')
		lines <- strings.TrimSpace(l)
		_, _ = io.Copy(io.Discard, br)
	}()
	select {
	case l := <-lines:
		f := strings.Fields(l)
		if len(f) == 0 {
			stop()
			t.Fatal("mock-server printed no address")
		}
		addr := f[len(f)-1]
		if !strings.HasPrefix(addr, "http") {
			addr = "http://" + addr
		}
		return addr, stop
	case <-time.After(30 * time.Second):
		stop()
		t.Fatal("mock-server did not start")
	}
	return "", stop
}

// Shell commands are confined to the project even in bypassPermissions.
func TestSandboxConfinesShellWrites(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	if d := s.run(nil, "doctor", "--mock"); !strings.Contains(d.stdout, "ok    sandbox: on (") {
		testenv.Missing(t, "Landlock (hew doctor: "+d.stdout+")")
	}
	// The temp directory is writable in the sandbox; give hew its own so
	// that HOME (also under the test's temp directory) is outside.
	tmp := filepath.Join(filepath.Dir(s.proj), "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(s.user, "outside.txt")
	r := s.run([]string{"TMPDIR=" + tmp}, "--mock", "--yolo", "-p", "run `touch "+outside+"; touch inside.txt`")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a sandboxed command wrote outside the project")
	}
	if _, err := os.Stat(filepath.Join(s.proj, "inside.txt")); err != nil {
		t.Errorf("a sandboxed command could not write inside the project: %v\n%s", err, r.stderr)
	}
}

func TestDoctor(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	r := s.run(nil, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "ANTHROPIC_API_KEY") || !strings.Contains(r.stdout, "--mock") {
		t.Errorf("doctor without a key: exit %d\n%s", r.code, r.stdout)
	}
	s.write(".hew/settings.json", `{"permissions": {"allow": [}`)
	r = s.run(nil, "doctor", "--mock")
	if r.code != 1 || !strings.Contains(r.stdout, ".hew/settings.json") {
		t.Errorf("doctor with a broken settings file: exit %d\n%s", r.code, r.stdout)
	}
	s.write(".hew/settings.json", `{}`)
	r = s.run(nil, "doctor", "--mock")
	if r.code != 0 || !strings.Contains(r.stdout, "no problems found") {
		t.Errorf("doctor --mock: exit %d\n%s", r.code, r.stdout)
	}
	// A local endpoint that answers: reachable; one that does not: a failure naming it.
	addr, stop := startMockServer(t, s, s.scenario("empty.json", `{"turns": [{"text": "hi"}]}`))
	defer stop()
	r = s.run([]string{"ANTHROPIC_API_KEY=x", "ANTHROPIC_BASE_URL=" + addr}, "doctor")
	if !strings.Contains(r.stdout, "endpoint "+addr+" answers") {
		t.Errorf("doctor against mock-server: exit %d\n%s", r.code, r.stdout)
	}
	r = s.run([]string{"ANTHROPIC_API_KEY=x", "ANTHROPIC_BASE_URL=http://127.0.0.1:1"}, "doctor", "--timeout", "2s")
	if r.code != 1 || !strings.Contains(r.stdout, "unreachable") {
		t.Errorf("doctor against a closed port: exit %d\n%s", r.code, r.stdout)
	}
}

// Project instructions and long-term memory reach the model in the first
// message (a <system-reminder>), as the session file shows.
func TestInstructionsAndMemoryInFirstMessage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, true)
	s.write("AGENTS.md", "Always run make lint before committing.\n")
	// A memory that bears on the message is recalled into it (issue 16:
	// matching memories, not all of them).
	if r := s.run(nil, "memory", "add", "--type", "project", "Listing files on the CI machine is slow: it has two cores."); r.code != 0 {
		t.Fatalf("memory add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := s.run(nil, "--mock", "-p", "list files"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	files := s.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	loaded, err := session.Load(files[0])
	if err != nil || len(loaded.Messages) == 0 {
		t.Fatalf("load: %v", err)
	}
	first := loaded.Messages[0].Text()
	for _, want := range []string{"<system-reminder>", "Always run make lint", "two cores", "list files"} {
		if !strings.Contains(first, want) {
			t.Errorf("first message lacks %q:\n%s", want, first)
		}
	}
	if st := s.git("status", "--porcelain"); strings.TrimSpace(st) != "?? AGENTS.md" {
		t.Errorf("hew wrote into the project: %q", st)
	}
}
