package app

import (
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/pick"
)

// chooseProvider picks the provider of a run from its flags, environment
// and settings (internal/llm/pick).
func (a *cli) chooseProvider(o *options, settingsProvider, settingsModel string) (pick.Choice, error) {
	return pick.Choose(o.providerFlags(), a.getenv, settingsProvider, settingsModel)
}

// providerFlags are the flags that pick the provider.
func (o *options) providerFlags() pick.Flags {
	return pick.Flags{Mock: o.mock, Provider: o.provider, Model: o.model, APIBase: o.apiBase}
}

// newProvider builds the chosen provider; no connection is made yet.
func (a *cli) newProvider(c pick.Choice) (llm.Provider, error) {
	return pick.New(c, a.getenv("HEW_MOCK_SCRIPT"))
}
