package pick

import (
	"fmt"
	"strings"
)

// Check reports flags that cannot pick a provider: an unknown --provider,
// or --mock with another one.
func (f Flags) Check() error {
	if f.Mock && f.Provider != "" && f.Provider != "mock" {
		return fmt.Errorf("--mock conflicts with --provider %s", f.Provider)
	}
	switch f.Provider {
	case "", "anthropic", "openai", "mock":
		return nil
	}
	return fmt.Errorf("unknown --provider %q (want anthropic, openai or mock)", f.Provider)
}

// credentialVar reports whether k is a variable the model credentials are
// read from.
func credentialVar(k string) bool {
	switch k {
	case "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "AGENT_API_KEY":
		return true
	}
	return false
}

// WithoutCredentials is environ without hew's own model credentials: the
// environment of the commands the model runs, so a prompt injection cannot
// send the key elsewhere. Endpoints and every other variable are kept.
func WithoutCredentials(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); !credentialVar(k) {
			out = append(out, kv)
		}
	}
	return out
}
