package app

import (
	rootcmd "github.com/hew-dev/hew/internal/cmd/root"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/pick"
)

// chooseProvider picks the provider of a run from its flags, environment
// and settings (internal/llm/pick).
func (a *cli) chooseProvider(o *rootcmd.Options, settingsProvider, settingsModel string) (pick.Choice, error) {
	return pick.Choose(o.ProviderFlags(), a.getenv, settingsProvider, settingsModel)
}

// newProvider builds the chosen provider; no connection is made yet.
func (a *cli) newProvider(c pick.Choice) (llm.Provider, error) {
	return pick.New(c, a.getenv("HEW_MOCK_SCRIPT"))
}
