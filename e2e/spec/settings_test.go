package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/testenv"
)

// SPEC section 3, settings shape: hooks (PreToolUse blocks, PostToolUse
// sees the result), each hook gets a JSON payload on stdin.
func TestHooksFromSettings(t *testing.T) {
	testenv.File(t, "/bin/sh", "a POSIX shell")
	w := newWorld(t)
	w.write("f.txt", "hook-visible\n")
	w.write(".hew/settings.json", `{"hooks":{
	  "PreToolUse":[{"matcher":"run_shell","command":"cat > pre.json; echo 'blocked by policy' >&2; exit 2","timeout":10}],
	  "PostToolUse":[{"matcher":"read_file","command":"cat > post.json","timeout":10}]}}`)
	sc := `{"turns":[{"text":"t","tool_calls":[{"name":"run_shell","input":{"command":"echo ran > ran.txt"}}]},
	  {"text":"t2","tool_calls":[{"name":"read_file","input":{"file_path":"f.txt"}}]},{"text":"end"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--trust-project", "--yolo", "--output-format", "json", "go")
	res := jsonResult(t, r)
	if r.code != 0 || res.str("result") != "end" {
		t.Fatalf("run did not complete\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(w.proj, "ran.txt")); err == nil {
		t.Fatal("a PreToolUse hook exiting 2 did not block the call")
	}
	pd, _ := res["permission_denials"].([]any)
	if len(pd) != 1 || !strings.Contains(mustJSON(pd), "blocked by policy") {
		t.Fatalf("the block (with the hook's reason) is not among the denials: %v", pd)
	}
	var pre, post map[string]any
	if err := json.Unmarshal([]byte(w.read("pre.json")), &pre); err != nil {
		t.Fatalf("PreToolUse payload is not JSON: %v", err)
	}
	if !strings.Contains(mustJSON(pre), "run_shell") || !strings.Contains(mustJSON(pre), "echo ran") {
		t.Errorf("PreToolUse payload lacks the tool or input: %v", pre)
	}
	if err := json.Unmarshal([]byte(w.read("post.json")), &post); err != nil {
		t.Fatalf("PostToolUse payload is not JSON: %v", err)
	}
	if !strings.Contains(mustJSON(post), "hook-visible") {
		t.Errorf("PostToolUse payload lacks the result: %v", post)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// SPEC section 2/3: HEW_HOME defaults to ~/.hew.
func TestDefaultHewHome(t *testing.T) {
	w := newWorld(t)
	var env []string
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "HEW_HOME=") {
			env = append(env, kv)
		}
	}
	saved := w.env
	w.env = env
	defer func() { w.env = saved }()
	r := w.hew("-p", "--mock", "--output-format", "json", "hi")
	id := jsonResult(t, r).str("session_id")
	p := filepath.Join(w.user, ".hew", "projects", projectKey(w.proj), "sessions", id+".jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("without HEW_HOME the session is not under ~/.hew: %v", err)
	}
}

// Settings "model" is a default below --model and HEW_MODEL.
func TestSettingsModel(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock("")
	w.write(".hew/settings.json", `{"model":"model-from-settings"}`)
	r := w.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	if m := ms.requests()[0].body["model"]; m != "model-from-settings" {
		t.Fatalf("model %v, want the settings' model", m)
	}
	// local settings override project settings.
	w.write(".hew/settings.local.json", `{"model":"model-from-local"}`)
	before := len(ms.requests())
	_ = w.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", "hi")
	if m := ms.requests()[before].body["model"]; m != "model-from-local" {
		t.Fatalf("model %v, want settings.local.json's", m)
	}
}

// PreToolUse hooks fail closed (garbage, timeout, crash block the call)
// and may rewrite the input (issue 5 §10).
func TestPreToolUseHookOutcomes(t *testing.T) {
	testenv.File(t, "/bin/sh", "a POSIX shell")
	sc := `{"turns":[{"text":"t","tool_calls":[{"name":"run_shell","input":{"command":"echo original > ran.txt"}}]},{"text":"end"}]}`
	for _, c := range []struct {
		name, hook string
		blocked    bool
		file       string // expected content of ran.txt when not blocked
	}{
		{"garbage output", `echo not-json-garbage`, true, ""},
		{"timeout", `sleep 5`, true, ""},
		{"crash", `exit 1`, true, ""},
		{"json block", `echo '{"decision":"block","reason":"nope"}'`, true, ""},
		{"updatedInput", `echo '{"updatedInput":{"command":"echo rewritten > ran.txt"}}'`, false, "rewritten\n"},
		{"silent success", `true`, false, "original\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
				map[string]any{"matcher": "run_shell", "command": c.hook, "timeout": 1}}}})
			w.write(".hew/settings.json", string(hooks))
			r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--trust-project", "--yolo", "--output-format", "json", "go")
			res := jsonResult(t, r)
			if r.code != 0 || res.str("result") != "end" {
				t.Fatalf("a hook outcome took the loop down\n%s", r)
			}
			got, err := readFileErr(w, "ran.txt")
			if c.blocked {
				if err == nil {
					t.Fatalf("the call ran although the hook should block it")
				}
				if len(res["permission_denials"].([]any)) != 1 {
					t.Fatalf("the block is not listed in permission_denials\n%s", r)
				}
				return
			}
			if got != c.file {
				t.Fatalf("ran.txt = %q, want %q", got, c.file)
			}
		})
	}
}
