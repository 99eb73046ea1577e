package app

import (
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/sandbox"
	"github.com/hew-dev/hew/internal/session"
)

// brakes builds the permission engine and the sandbox exactly as a session
// in root uses them (`hew permissions check` asks the same engine): the
// same settings, rules, directories and sandbox state, since builds and
// tests are known-safe only while the sandbox confines writes and the
// network.
func (a *cli) brakes(root string, s *config.Settings, f permission.Flags, noSandbox bool) (*permission.Engine, *sandbox.Sandbox, error) {
	opts := permission.ForProject(root, a.homeDir(), a.hewHome(), session.ProjectDir(a.hewHome(), root), s)
	f.Apply(&opts)
	probe, err := permission.New(opts)
	if err != nil {
		return nil, nil, err
	}
	sb := sandbox.New(sandbox.FromSettings(s, noSandbox, sandbox.Policy{Root: root, Extra: probe.AdditionalDirs(), Home: a.homeDir(), Getenv: a.getenv}))
	opts.SandboxActive = sb.ConfinesNetwork()
	eng, err := permission.New(opts)
	return eng, sb, err
}
