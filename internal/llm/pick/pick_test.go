package pick

import (
	"errors"
	"strings"
	"testing"
)

// envFunc reads a KEY=VALUE list, the last definition winning.
func envFunc(environ []string) func(string) string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(k string) string { return m[k] }
}

func TestChooseProvider(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flags    Flags
		env      []string
		setProv  string
		setModel string
		want     Choice
		wantErr  string
	}{
		{name: "nothing set", wantErr: "ANTHROPIC_API_KEY"},
		{name: "mock flag wins over keys", flags: Flags{Mock: true}, env: []string{"ANTHROPIC_API_KEY=a", "HEW_PROVIDER=openai"},
			want: Choice{Name: "mock", Model: "mock"}},
		{name: "provider flag beats HEW_PROVIDER", flags: Flags{Provider: "anthropic"}, env: []string{"HEW_PROVIDER=mock", "ANTHROPIC_API_KEY=k"},
			want: Choice{Name: "anthropic", Model: defaultAnthropicModel, BaseURL: defaultAnthropicBase, APIKey: "k", KeyVar: "ANTHROPIC_API_KEY"}},
		{name: "HEW_PROVIDER beats keys", env: []string{"HEW_PROVIDER=mock", "ANTHROPIC_API_KEY=k"},
			want: Choice{Name: "mock", Model: "mock"}},
		{name: "HEW_PROVIDER beats settings", env: []string{"HEW_PROVIDER=mock"}, setProv: "anthropic",
			want: Choice{Name: "mock", Model: "mock"}},
		{name: "openai key with base url beats anthropic key",
			env:  []string{"ANTHROPIC_API_KEY=a", "OPENAI_API_KEY=o", "OPENAI_BASE_URL=http://127.0.0.1:11434/v1/"},
			want: Choice{Name: "openai", Model: defaultOpenAIModel, BaseURL: "http://127.0.0.1:11434/v1", APIKey: "o", KeyVar: "OPENAI_API_KEY"}},
		{name: "anthropic key beats a bare openai key", env: []string{"ANTHROPIC_API_KEY=a", "OPENAI_API_KEY=o"},
			want: Choice{Name: "anthropic", Model: defaultAnthropicModel, BaseURL: defaultAnthropicBase, APIKey: "a", KeyVar: "ANTHROPIC_API_KEY"}},
		{name: "auth token alone", env: []string{"ANTHROPIC_AUTH_TOKEN=t", "ANTHROPIC_BASE_URL=http://h:1"},
			want: Choice{Name: "anthropic", Model: defaultAnthropicModel, BaseURL: "http://h:1", AuthToken: "t", KeyVar: "ANTHROPIC_AUTH_TOKEN"}},
		{name: "bare openai key", env: []string{"OPENAI_API_KEY=o"},
			want: Choice{Name: "openai", Model: defaultOpenAIModel, BaseURL: defaultOpenAIBase, APIKey: "o", KeyVar: "OPENAI_API_KEY"}},
		{name: "agent key defaults to deepseek", env: []string{"AGENT_API_KEY=g"},
			want: Choice{Name: "openai", Model: defaultAgentModel, BaseURL: defaultAgentBase, APIKey: "g", KeyVar: "AGENT_API_KEY"}},
		{name: "agent key with base and model", env: []string{"AGENT_API_KEY=g", "AGENT_BASE_URL=http://x/v1", "AGENT_MODEL=kimi-k2"}, setModel: "claude-x",
			want: Choice{Name: "openai", Model: "kimi-k2", BaseURL: "http://x/v1", APIKey: "g", KeyVar: "AGENT_API_KEY"}},
		{name: "model flag beats HEW_MODEL beats settings", flags: Flags{Model: "m1"}, env: []string{"ANTHROPIC_API_KEY=a", "HEW_MODEL=m2"}, setModel: "m3",
			want: Choice{Name: "anthropic", Model: "m1", BaseURL: defaultAnthropicBase, APIKey: "a", KeyVar: "ANTHROPIC_API_KEY"}},
		{name: "HEW_MODEL beats settings", env: []string{"ANTHROPIC_API_KEY=a", "HEW_MODEL=m2"}, setModel: "m3",
			want: Choice{Name: "anthropic", Model: "m2", BaseURL: defaultAnthropicBase, APIKey: "a", KeyVar: "ANTHROPIC_API_KEY"}},
		{name: "settings model", env: []string{"ANTHROPIC_API_KEY=a"}, setModel: "m3",
			want: Choice{Name: "anthropic", Model: "m3", BaseURL: defaultAnthropicBase, APIKey: "a", KeyVar: "ANTHROPIC_API_KEY"}},
		{name: "api-base overrides the variable", flags: Flags{APIBase: "http://127.0.0.1:9/"}, env: []string{"ANTHROPIC_API_KEY=a", "ANTHROPIC_BASE_URL=http://other"},
			want: Choice{Name: "anthropic", Model: defaultAnthropicModel, BaseURL: "http://127.0.0.1:9", APIKey: "a", KeyVar: "ANTHROPIC_API_KEY"}},
		{name: "ollama needs no key", env: []string{"HEW_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:11434/v1"}, flags: Flags{Model: "qwen3"},
			want: Choice{Name: "openai", Model: "qwen3", BaseURL: "http://127.0.0.1:11434/v1"}},
		{name: "explicit anthropic without key", env: []string{"HEW_PROVIDER=anthropic"}, wantErr: "needs ANTHROPIC_API_KEY"},
		{name: "explicit openai without key", flags: Flags{Provider: "openai"}, wantErr: "needs OPENAI_API_KEY"},
		{name: "unknown HEW_PROVIDER", env: []string{"HEW_PROVIDER=gemini"}, wantErr: `unknown provider "gemini"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Choose(tc.flags, envFunc(tc.env), tc.setProv, tc.setModel)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Why = ""
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestNoProviderMessageNamesEverything(t *testing.T) {
	_, err := Choose(Flags{}, envFunc(nil), "", "")
	if !errors.Is(err, ErrNoProvider) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AGENT_API_KEY", "HEW_PROVIDER", "--mock"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %s:\n%v", want, err)
		}
	}
}
