package app

import (
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/execx"
	"github.com/hew-dev/hew/internal/hooks"
	"github.com/hew-dev/hew/internal/sandbox"
)

// sandboxArg is the hidden first argument of hew's sandbox personality: the
// sandbox re-executes hew with it to confine a shell command.
const sandboxArg = sandbox.HelperArg

func sandboxMain(args []string) int { return sandbox.Main(args) }

// wireBrakes builds the permission engine, the hooks and the shell runner
// (sandboxed when possible).
func (a *cli) wireBrakes(rt *parts) error {
	b, err := buildBrakes(brakeInputs{
		root: rt.root, homeDir: rt.homeDir, hewHome: rt.home, stateDir: rt.stateDir,
		settings: rt.settings, allowed: rt.o.allowedTools, disallowed: rt.o.disallowedTools, addDirs: rt.o.addDirs, getenv: a.env.get,
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
	rt.env.Shell = &execx.Runner{Wrap: b.wrap, SandboxNote: b.warning, Guard: execx.DefaultGuard()}
	rt.sandboxLine = sandboxLine(b.wrap != nil, rt.settings.Sandbox.Network == config.NetworkAll, b.warning)
	if b.warning != "" {
		rt.notices = append(rt.notices, b.warning)
	}
	return nil
}
