package spec

import (
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
