package spec

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// SPEC section 2: no provider → exit 2 naming the variables and --mock.
func TestNoProviderExit2(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{{"-p", "hi"}, {"-p", "--output-format", "json", "hi"}} {
		r := w.hew(args...)
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r)
		}
		for _, name := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL",
			"AGENT_API_KEY", "HEW_PROVIDER", "--mock"} {
			if !strings.Contains(r.stderr, name) {
				t.Errorf("the message does not name %s:\n%s", name, r.stderr)
			}
		}
	}
}

// A provider named without its credentials, or an unknown one, is a config
// error (exit 2) that names what is missing.
func TestProviderMisconfigExit2(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"HEW_PROVIDER=openai"}, "OPENAI_API_KEY"},
		{[]string{"HEW_PROVIDER=anthropic"}, "ANTHROPIC_API_KEY"},
		{[]string{"HEW_PROVIDER=bogus"}, "bogus"},
	} {
		r := w.hewEnv(c.env, "-p", "hi")
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 naming %s\n%s", c.env, r.code, c.want, r)
		}
	}
}

// SPEC section 2: provider choice, first match wins, and the base URL
// conventions (ANTHROPIC_BASE_URL without /v1, OPENAI_BASE_URL with it,
// --api-base in the chosen provider's form). The init event says which
// provider was picked; the recording proxy shows which wire API was spoken.
func TestProviderChoice(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock("") // no scenario: stateless intent answers
	const anth, oai = "/v1/messages", "/v1/chat/completions"
	base := ms.via
	for _, tc := range []struct {
		name     string
		env      []string
		args     []string
		provider string
		path     string // "" = no HTTP request expected (mock)
	}{
		{"anthropic key", []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + base}, nil, "anthropic", anth},
		{"anthropic auth token", []string{"ANTHROPIC_AUTH_TOKEN=k", "ANTHROPIC_BASE_URL=" + base}, nil, "anthropic", anth},
		{"openai key with base url beats anthropic", []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + base + "/v1",
			"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + base}, nil, "openai", oai},
		{"anthropic beats openai key without base url", []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + base,
			"OPENAI_API_KEY=k"}, nil, "anthropic", anth},
		{"openai key alone, --api-base in openai form", []string{"OPENAI_API_KEY=k"}, []string{"--api-base", base + "/v1"}, "openai", oai},
		{"anthropic key, --api-base in anthropic form", []string{"ANTHROPIC_API_KEY=k"}, []string{"--api-base", base}, "anthropic", anth},
		{"agent key", []string{"AGENT_API_KEY=k", "AGENT_BASE_URL=" + base + "/v1"}, nil, "openai", oai},
		{"HEW_PROVIDER beats keys", []string{"HEW_PROVIDER=anthropic", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + base,
			"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + base + "/v1"}, nil, "anthropic", anth},
		{"HEW_PROVIDER=mock", []string{"HEW_PROVIDER=mock", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + base}, nil, "mock", ""},
		{"--provider beats HEW_PROVIDER", []string{"HEW_PROVIDER=anthropic", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + base,
			"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + base + "/v1"}, []string{"--provider", "openai"}, "openai", oai},
		{"--mock beats everything", []string{"HEW_PROVIDER=anthropic", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + base},
			[]string{"--mock"}, "mock", ""},
		{"--provider mock", nil, []string{"--provider", "mock"}, "mock", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(ms.requests())
			args := append(append([]string{"-p", "--output-format", "stream-json"}, tc.args...), "hi")
			r := w.hewEnv(tc.env, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			init := ofType(events(t, r), "init")
			if len(init) != 1 {
				t.Fatalf("want one init event\n%s", r)
			}
			if p, _ := init[0]["provider"].(string); p != "" && p != tc.provider {
				t.Fatalf("provider %q, want %q\n%s", p, tc.provider, r)
			}
			reqs := ms.requests()[before:]
			if tc.path == "" {
				if len(reqs) != 0 {
					t.Fatalf("the mock provider must not call the server; got %d requests", len(reqs))
				}
				return
			}
			if len(reqs) == 0 {
				t.Fatalf("no request reached the configured endpoint\n%s", r)
			}
			for _, q := range reqs {
				if q.path != tc.path {
					t.Fatalf("request to %s, want %s", q.path, tc.path)
				}
			}
		})
	}
}

// HEW_MODEL and --model pick the model sent to the server.
func TestModelSelection(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock("")
	for _, tc := range []struct {
		env   []string
		args  []string
		model string
	}{
		{[]string{"HEW_MODEL=model-from-env"}, nil, "model-from-env"},
		{[]string{"HEW_MODEL=model-from-env"}, []string{"--model", "model-from-flag"}, "model-from-flag"},
	} {
		before := len(ms.requests())
		args := append(append([]string{"-p", "--output-format", "json"}, tc.args...), "hi")
		r := w.hewEnv(append(ms.anthropicEnv(), tc.env...), args...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r)
		}
		reqs := ms.requests()[before:]
		if len(reqs) == 0 || reqs[0].body["model"] != tc.model {
			t.Fatalf("model sent = %v, want %q", reqs, tc.model)
		}
	}
}

// AGENT_API_KEY routes to an OpenAI-compatible DeepSeek endpoint with
// AGENT_MODEL's default; DeepSeek needs reasoning_content sent back on
// assistant messages with tool calls (issue 2, compatibility profile).
func TestAgentRouteDeepSeekReasoning(t *testing.T) {
	w := newWorld(t)
	w.write("a.txt", "x\n")
	ms := w.startMock(`{"turns":[{"thinking":"MARK-REASONING","text":"t","tool_calls":[{"name":"read_file","input":{"file_path":"a.txt"}}]},{"text":"done"}]}`)
	r := w.hewEnv([]string{"AGENT_API_KEY=k", "AGENT_BASE_URL=" + ms.via + "/v1"}, "-p", "--output-format", "json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	reqs := ms.requests()
	if len(reqs) != 2 || reqs[0].path != "/v1/chat/completions" || reqs[0].body["model"] != "deepseek-chat" {
		t.Fatalf("want two chat completions requests for deepseek-chat, got %d", len(reqs))
	}
	msgs, _ := reqs[1].body["messages"].([]any)
	var echoed bool
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] == "assistant" && mm["tool_calls"] != nil && mm["reasoning_content"] == "MARK-REASONING" {
			echoed = true
		}
	}
	if !echoed {
		t.Fatalf("reasoning_content not sent back on the assistant tool-call message")
	}
}

// Anthropic prompt caching (issue 2): the static system block, the tool
// definitions and the last message carry cache_control; the OpenAI wire and
// the stored session never do.
func TestPromptCachingMarkers(t *testing.T) {
	w := newWorld(t)
	w.write("a.txt", "x\n")
	sc := `{"turns":[{"text":"t","tool_calls":[{"name":"read_file","input":{"file_path":"a.txt"}}]},{"text":"done"}]}`
	ms := w.startMock(sc)
	r := w.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	for i, q := range ms.requests() {
		sys, _ := q.body["system"].([]any)
		if len(sys) == 0 || sys[0].(map[string]any)["cache_control"] == nil {
			t.Errorf("request %d: the static system block has no cache_control", i)
		}
		tools, _ := q.body["tools"].([]any)
		if len(tools) == 0 || tools[len(tools)-1].(map[string]any)["cache_control"] == nil {
			t.Errorf("request %d: the tool definitions carry no cache_control", i)
		}
		msgs, _ := q.body["messages"].([]any)
		last, _ := json.Marshal(msgs[len(msgs)-1])
		if !strings.Contains(string(last), "cache_control") {
			t.Errorf("request %d: no rolling cache breakpoint on the last message", i)
		}
	}
	id := jsonResult(t, r).str("session_id")
	if strings.Contains(firstUserText(t, filepath.Join(w.home, "projects", projectKey(w.proj), "sessions", id+".jsonl")), "cache_control") {
		t.Errorf("transport metadata (cache_control) leaked into the stored session")
	}
	ms2 := w.startMock(sc)
	r = w.hewEnv(ms2.openaiEnv(), "-p", "--output-format", "json", "go")
	for i, q := range ms2.requests() {
		if b, _ := json.Marshal(q.body); strings.Contains(string(b), "cache_control") {
			t.Errorf("openai request %d carries Anthropic's cache_control", i)
		}
	}
}
