package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// SPEC section 1: hew doctor checks keys, endpoint reachability, sandbox,
// ripgrep and config files, and says what is wrong and how to fix it.
func TestDoctor(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock("")

	r := w.hew("doctor")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "ANTHROPIC_API_KEY") || !strings.Contains(strings.ToLower(r.stdout+r.stderr), "fix") {
		t.Errorf("doctor without a key must fail and say how to fix it\n%s", r)
	}
	r = w.hewEnv(ms.anthropicEnv(), "doctor")
	if r.code != 0 {
		t.Errorf("doctor with a reachable endpoint: exit %d\n%s", r.code, r)
	}
	out := strings.ToLower(r.stdout + r.stderr)
	for _, topic := range []string{"sandbox", "ripgrep", "settings", ms.via} {
		if !strings.Contains(out, strings.ToLower(topic)) {
			t.Errorf("doctor output does not mention %q\n%s", topic, r)
		}
	}
	r = w.hewEnv([]string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=http://127.0.0.1:9"}, "doctor")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "127.0.0.1:9") {
		t.Errorf("doctor with an unreachable endpoint must fail naming it\n%s", r)
	}
	w.write(".hew/settings.json", "{oops")
	r = w.hew("doctor", "--mock")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "settings.json") {
		t.Errorf("doctor must report a broken settings file\n%s", r)
	}
	w.write(".hew/settings.json", "{}")
	w.write(".mcp.json", `{"mcpServers": {`)
	r = w.hew("doctor", "--mock")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, ".mcp.json") {
		t.Errorf("doctor must report a broken .mcp.json\n%s", r)
	}
}

// --append-system-prompt reaches the system prompt; the project
// instructions do not sit in it (they go to the first user message so the
// cached prefix never changes, issue 4).
func TestAppendSystemPrompt(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock("")
	w.write("AGENTS.md", "MARK-PROJECT-INSTRUCTIONS\n")
	r := w.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", "--append-system-prompt", "MARK-APPENDED-TEXT", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	reqs := ms.requests()
	sys, _ := json.Marshal(reqs[0].body["system"])
	msgs, _ := json.Marshal(reqs[0].body["messages"])
	if !strings.Contains(string(sys), "MARK-APPENDED-TEXT") {
		t.Errorf("--append-system-prompt text not in the system prompt")
	}
	if strings.Contains(string(sys), "MARK-PROJECT-INSTRUCTIONS") || !strings.Contains(string(msgs), "MARK-PROJECT-INSTRUCTIONS") {
		t.Errorf("project instructions must go into the first user message, not the system prompt")
	}
	// The static core is identical across runs and directories.
	w2 := newWorld(t)
	r = w2.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	all := ms.requests()
	first := staticBlock(reqs[0].body)
	if first == "" || staticBlock(all[len(all)-1].body) != first {
		t.Errorf("the first (static, cached) system block differs between sessions")
	}
}

// staticBlock returns the text of the first Anthropic system block.
func staticBlock(body map[string]any) string {
	list, _ := body["system"].([]any)
	if len(list) == 0 {
		return ""
	}
	m, _ := list[0].(map[string]any)
	s, _ := m["text"].(string)
	return s
}
