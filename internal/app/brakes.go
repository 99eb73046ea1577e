package app

import (
	"path/filepath"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/hooks"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/sandbox"
)

// brakeInputs are what the permission engine and the sandbox are built
// from; a session and `hew permissions check` pass the same ones.
type brakeInputs struct {
	root, homeDir, hewHome, stateDir string
	settings                         *config.Settings
	allowed, disallowed              []string
	addDirs                          []string            // --add-dir
	getenv                           func(string) string // the environment hew was given
	noSandbox                        bool                // --no-sandbox
}

// brakes are the built permission engine and shell confinement.
type brakes struct {
	eng *permission.Engine
	sb  *sandbox.Sandbox
}

// buildBrakes builds the engine exactly as a session uses it: the same
// settings, rules, directories and sandbox state (builds and tests are
// known-safe only while the sandbox confines writes and the network).
func buildBrakes(in brakeInputs) (brakes, error) {
	opts := permission.Options{
		Root:            in.root,
		HomeDir:         in.homeDir,
		HewHome:         in.hewHome,
		Settings:        in.settings,
		AllowedTools:    in.allowed,
		DisallowedTools: in.disallowed,
		ReadableDirs:    []string{filepath.Join(in.stateDir, "tool-results"), filepath.Join(in.stateDir, "memory")},
		LocalSettings:   filepath.Join(in.root, ".hew", "settings.local.json"),
		AdditionalDirs:  in.addDirs,
		KeepTrust: func(write func() error) error {
			return config.KeepTrust(config.Paths{Home: in.hewHome, Project: in.root, UserHome: in.homeDir}, write)
		},
	}
	probe, err := permission.New(opts)
	if err != nil {
		return brakes{}, err
	}
	sb := sandbox.New(sandbox.FromSettings(in.settings, in.noSandbox, sandbox.Policy{Root: in.root, Extra: probe.AdditionalDirs(), Home: in.homeDir, Getenv: in.getenv}))
	opts.SandboxActive = sb.ConfinesNetwork()
	eng, err := permission.New(opts)
	if err != nil {
		return brakes{}, err
	}
	return brakes{eng: eng, sb: sb}, nil
}

// wireBrakes builds the permission engine, the hooks and the shell runner
// (sandboxed when possible).
func (a *cli) wireBrakes(p *parts) error {
	b, err := buildBrakes(brakeInputs{
		root: p.root, homeDir: p.homeDir, hewHome: p.home, stateDir: p.stateDir,
		settings: p.settings, allowed: p.o.allowedTools, disallowed: p.o.disallowedTools, addDirs: p.o.addDirs, getenv: a.getenv, noSandbox: p.o.noSandbox,
	})
	if err != nil {
		return usageErr(err)
	}
	p.perms, p.sandbox = b.eng, b.sb
	p.env.AdditionalDirs = b.eng.AdditionalDirs()
	p.env.AllowOutside = b.eng.AllowsOutside
	p.env.DeniedRead = b.eng.DeniesRead
	p.hooks = hooks.New(p.settings.Hooks, p.root, a.environ)
	var reaped string
	p.env.Shell, reaped = b.sb.ProjectShell(p.stateDir)
	if reaped != "" {
		p.notices = append(p.notices, reaped)
	}
	p.sandboxLine = b.sb.Describe()
	if w := b.sb.StartupWarning(); w != "" {
		p.notices = append(p.notices, w)
	}
	return nil
}
