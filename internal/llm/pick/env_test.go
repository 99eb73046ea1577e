package pick

import (
	"strings"
	"testing"
)

func TestWithoutCredentials(t *testing.T) {
	got := WithoutCredentials([]string{"PATH=/bin", "ANTHROPIC_API_KEY=secret", "OPENAI_API_KEY=s2", "AGENT_API_KEY=s3", "ANTHROPIC_AUTH_TOKEN=s4", "GITHUB_TOKEN=kept", "ANTHROPIC_BASE_URL=http://x"})
	want := []string{"PATH=/bin", "GITHUB_TOKEN=kept", "ANTHROPIC_BASE_URL=http://x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("WithoutCredentials = %q, want %q", got, want)
	}
}

func TestFlagsCheck(t *testing.T) {
	for _, tc := range []struct {
		f   Flags
		err string
	}{
		{Flags{}, ""},
		{Flags{Mock: true}, ""},
		{Flags{Mock: true, Provider: "mock"}, ""},
		{Flags{Provider: "openai"}, ""},
		{Flags{Mock: true, Provider: "openai"}, "--mock conflicts with --provider openai"},
		{Flags{Provider: "gemini"}, `unknown --provider "gemini"`},
	} {
		err := tc.f.Check()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: %v, want %q", tc.f, err, tc.err)
		}
	}
}
