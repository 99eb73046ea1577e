package app

import (
	"github.com/hew-dev/hew/internal/hooks"
)

// wireBrakes builds the permission engine, the hooks and the shell runner
// (sandboxed when possible).
func (a *cli) wireBrakes(rt *parts) error {
	b, err := buildBrakes(brakeInputs{
		root: rt.root, homeDir: rt.homeDir, hewHome: rt.home, stateDir: rt.stateDir,
		settings: rt.settings, allowed: rt.o.allowedTools, disallowed: rt.o.disallowedTools, addDirs: rt.o.addDirs, getenv: a.env.get, noSandbox: rt.o.noSandbox,
	})
	if err != nil {
		return usageErr(err)
	}
	eng := b.eng
	rt.perms = eng
	rt.env.AdditionalDirs = eng.AdditionalDirs()
	rt.env.AllowOutside = eng.AllowsOutside
	rt.env.DeniedRead = eng.DeniesRead
	rt.hooks = hooks.New(rt.settings.Hooks, rt.root, a.environ)
	rt.wireSandbox(b.sb)
	return nil
}
