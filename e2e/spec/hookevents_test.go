package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/testenv"
)

// claudeHooks is a Claude Code-format hooks file (nested form) with every
// event hew runs, each leaving a trace or changing the run.
const claudeHooks = `{"hooks": {
  "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "cat > start.json; echo session-context-XYZ"}]},
                   {"matcher": "compact", "hooks": [{"type": "command", "command": "cat > compactstart.json"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh ups.sh", "timeout": 10}]}],
  "PreToolUse": [{"matcher": "Read|mcp__nothing", "hooks": [{"type": "command", "command": "cat > pre.json"}]}],
  "PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "cat > post.json"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "sh stop.sh"}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": "cat > substop.json"}]}],
  "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": "cat > precompact.json; echo '{\"systemMessage\": \"compacting now\"}'"}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "cat > end.json"}]}]
}, "contextWindow": 12000}`

const upsScript = `in=$(cat)
case "$in" in *forbidden*) echo "no forbidden prompts" >&2; exit 2;; esac
echo "prompt-context-ABC"
`

const stopScript = `in=$(cat); echo "$in" >> stop.log
case "$in" in *'"stop_hook_active":true'*) exit 0;; esac
echo '{"decision": "block", "reason": "run the tests first"}'
`

// Issue 15 item 2/7: every hook event, in Claude Code's format, driven by
// the mock provider: context added, prompt blocked, stop blocked once then
// allowed, the sub-agent's stop, compaction announced, the session's end.
func TestClaudeFormatHookEvents(t *testing.T) {
	testenv.File(t, "/bin/sh", "a POSIX shell")
	w := newWorld(t)
	w.write(".hew/settings.json", claudeHooks)
	w.write("ups.sh", upsScript)
	w.write("stop.sh", stopScript)
	w.write("greeting.txt", "hello\n")
	sessionText := func(id string) string {
		data, err := os.ReadFile(filepath.Join(w.home, "projects", projectKey(w.proj), "sessions", id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	sc := `{"turns":[{"text":"reading","tool_calls":[{"name":"read_file","input":{"file_path":"greeting.txt"}}]},
	  {"text":"first answer"},{"text":"after the stop feedback"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--trust-project", "--output-format", "json", "hello there")
	res := jsonResult(t, r)
	if r.code != 0 || res.str("result") != "after the stop feedback" {
		t.Fatalf("the Stop hook did not keep the turn going exactly once\n%s", r)
	}
	log := w.read("stop.log")
	if strings.Count(log, "\n") != 2 || !strings.Contains(log, `"stop_hook_active":false`) || !strings.Contains(log, `"stop_hook_active":true`) || !strings.Contains(log, `"hook_event_name":"Stop"`) {
		t.Errorf("stop.log:\n%s", log)
	}
	text := sessionText(res.str("session_id"))
	for _, want := range []string{"prompt-context-ABC", "session-context-XYZ", "Stop hook feedback: run the tests first"} {
		if !strings.Contains(text, want) {
			t.Errorf("the model was not given %q", want)
		}
	}
	for file, want := range map[string]string{
		"start.json": `"source":"startup"`, "end.json": `"hook_event_name":"SessionEnd"`,
		"pre.json": `"tool_name":"read_file"`, "post.json": `"hook_event_name":"PostToolUse"`,
	} {
		if got, err := readFileErr(w, file); err != nil || !strings.Contains(got, want) || !strings.Contains(got, `"session_id":"`+res.str("session_id")) {
			t.Errorf("%s = %q (%v), want %s and the session id", file, got, err, want)
		}
	}

	// A refused prompt never reaches the model; the hook's reason is shown.
	r = w.hewEnv(w.mockEnv(`{"turns":[{"text":"must not be used"}]}`), "-p", "--mock", "--trust-project", "--output-format", "json", "a forbidden thing")
	if res := jsonResult(t, r); r.code != 1 || !strings.Contains(res.str("result")+r.stderr+mustJSON(res), "no forbidden prompts") || strings.Contains(r.stdout, "must not be used") {
		t.Errorf("UserPromptSubmit exit 2 did not block the prompt\n%s", r)
	}

	// The sub-agent's end runs SubagentStop, not Stop.
	_ = os.Remove(filepath.Join(w.proj, "stop.log"))
	sc = `{"turns":[{"text":"delegating","tool_calls":[{"name":"agent","input":{"description":"look","prompt":"look around"}}]},
	  {"text":"sub-agent report"},{"text":"main answer"},{"text":"main after feedback"}]}`
	r = w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--trust-project", "--output-format", "json", "delegate")
	if got, err := readFileErr(w, "substop.json"); err != nil || !strings.Contains(got, `"hook_event_name":"SubagentStop"`) {
		t.Errorf("SubagentStop did not run: %q %v\n%s", got, err, r)
	}
	if log := w.read("stop.log"); strings.Count(log, "\n") != 2 {
		t.Errorf("Stop hooks ran %d times, want 2 (the main agent only)\n%s", strings.Count(log, "\n"), log)
	}

	// Compaction is announced: PreCompact runs with trigger auto and its
	// systemMessage is shown. A resumed session over the window compacts.
	w.write("big.txt", strings.Repeat("alpha beta gamma delta kappa omega\n", 1800))
	sc = `{"turns":[{"text":"reading","tool_calls":[{"name":"read_file","input":{"file_path":"big.txt"}}]},{"text":"read it"},{"text":"x"}],"side":{"compact":"SUMMARY"}}`
	r = w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--trust-project", "--output-format", "json", "read big.txt")
	r = w.hewEnv(w.mockEnv(`{"turns":[{"text":"second"},{"text":"second after feedback"}],"side":{"compact":"SUMMARY"}}`), "-p", "--mock", "--trust-project", "-c", "--output-format", "stream-json", "and now?")
	if got, err := readFileErr(w, "precompact.json"); err != nil || !strings.Contains(got, `"trigger":"auto"`) {
		t.Errorf("PreCompact did not run with trigger auto: %q %v\n%s", got, err, r)
	}
	if !strings.Contains(r.stdout+r.stderr, "compacting now") {
		t.Errorf("PreCompact's systemMessage was not shown\n%s", r)
	}
	if got, _ := readFileErr(w, "compactstart.json"); !strings.Contains(got, `"source":"compact"`) {
		t.Errorf("SessionStart after the compaction: %q", got)
	}
	if got, _ := readFileErr(w, "start.json"); !strings.Contains(got, `"source":"resume"`) {
		t.Errorf("SessionStart of a resumed session: %q", got)
	}
}
