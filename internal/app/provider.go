package app

import (
	"strings"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/pick"
)

// chooseProvider picks the provider of a run from its flags, environment
// and settings (internal/llm/pick).
func (a *cli) chooseProvider(o *options, settingsProvider, settingsModel string) (pick.Choice, error) {
	return pick.Choose(o.providerFlags(), a.env.get, settingsProvider, settingsModel)
}

// providerFlags are the flags that pick the provider.
func (o *options) providerFlags() pick.Flags {
	return pick.Flags{Mock: o.mock, Provider: o.provider, Model: o.model, APIBase: o.apiBase}
}

// newProvider builds the chosen provider; no connection is made yet.
func (a *cli) newProvider(c pick.Choice) (llm.Provider, error) {
	return pick.New(c, a.env.get("HEW_MOCK_SCRIPT"))
}

// envMap is the process environment as values (the last definition wins).
type envMap map[string]string

func newEnvMap(environ []string) envMap {
	m := envMap{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}

func (e envMap) get(k string) string { return e[k] }

func (e envMap) lookup(k string) (string, bool) {
	v, ok := e[k]
	return v, ok
}
