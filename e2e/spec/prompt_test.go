package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// firstRequests runs one headless turn against each provider through the
// recording proxy and returns the first main request of each.
func firstRequests(t *testing.T, w *world) (anthropic, openai recorded) {
	t.Helper()
	for i, env := range [][]string{nil, nil} {
		ms := w.startMock(`{"turns":[{"text":"hi"}]}`)
		if i == 0 {
			env = ms.anthropicEnv()
		} else {
			env = ms.openaiEnv()
		}
		if r := w.hewEnv(env, "-p", "hello"); r.code != 0 {
			t.Fatalf("hew -p: %s", r)
		}
		reqs := ms.requests()
		if len(reqs) == 0 {
			t.Fatal("no request reached the server")
		}
		if i == 0 {
			anthropic = reqs[0]
		} else {
			openai = reqs[0]
		}
	}
	return anthropic, openai
}

// Issue 20: the first request with every built-in tool and the full
// guidance stays at or under 20 KB, for both providers.
func TestFirstRequestBudget(t *testing.T) {
	w := newWorld(t)
	a, o := firstRequests(t, w)
	const budget = 20 * 1024
	t.Logf("first request: anthropic %d bytes, openai %d bytes (budget %d)", a.size, o.size, budget)
	if tl, ok := a.body["tools"].([]any); ok {
		for _, tool := range tl {
			b, _ := json.Marshal(tool)
			m, _ := tool.(map[string]any)
			t.Logf("  tool %-14v %5d bytes", m["name"], len(b))
		}
	}
	for name, r := range map[string]recorded{"anthropic": a, "openai": o} {
		if r.size > budget {
			t.Errorf("%s first request is %d bytes, over the %d-byte budget", name, r.size, budget)
		}
	}
	// The run's facts reach the model: headless, mode, sandbox, git, and
	// the deferred tools tool_search can load.
	sys, _ := a.body["system"].([]any)
	if len(sys) < 2 {
		t.Fatalf("system has %d blocks", len(sys))
	}
	env, _ := sys[1].(map[string]any)["text"].(string)
	core, _ := sys[0].(map[string]any)["text"].(string)
	t.Logf("static core %d bytes; environment block (%d bytes):\n%s", len(core), len(env), env)
	for _, want := range []string{"Session: headless; nobody answers", "Permission mode: default (", "Sandbox: ", "Git repository: no",
		"# Deferred tools", "- enter_plan_mode: ", "- exit_plan_mode: ", "- schedule_wakeup: "} {
		if !strings.Contains(env, want) {
			t.Errorf("environment block lacks %q:\n%s", want, env)
		}
	}
}

// Issue 20: the static core is the same bytes for both providers: the
// Anthropic system's first block is the start of the OpenAI system message.
func TestStaticCoreSameAcrossProviders(t *testing.T) {
	w := newWorld(t)
	a, o := firstRequests(t, w)
	sys, _ := a.body["system"].([]any)
	if len(sys) < 2 {
		t.Fatalf("anthropic system has %d blocks, want the core and the environment", len(sys))
	}
	core, _ := sys[0].(map[string]any)["text"].(string)
	msgs, _ := o.body["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatal("openai request has no messages")
	}
	first, _ := msgs[0].(map[string]any)
	content, _ := first["content"].(string)
	if first["role"] != "system" || core == "" || !strings.HasPrefix(content, core) {
		t.Fatalf("static core differs between providers:\nanthropic core %q\nopenai system %q", core, content)
	}
}
