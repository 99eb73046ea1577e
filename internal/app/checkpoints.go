package app

import (
	"os/exec"
	"path/filepath"
	"time"

	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/cmd/undo"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/session"
)

// checkpointStore opens the project's checkpoint store: the shadow git
// store when git is installed, the copy store otherwise; nil when the
// settings turn checkpoints off.
func (a *cli) checkpointStore(root string, s *config.Settings) *checkpoint.Store {
	if s != nil && !s.Checkpoints.Enabled {
		return nil
	}
	// Started in the home directory or a file-system root, a snapshot
	// would copy far more than a project: no checkpoints there.
	if root == a.homeDir() || filepath.Dir(root) == root {
		return nil
	}
	o := checkpoint.Options{Root: root, StateDir: session.ProjectDir(a.hewHome(), root), Env: a.environ}
	if git, err := exec.LookPath("git"); err == nil {
		o.Git = git
	}
	if s != nil {
		o.MaxAge = time.Duration(s.Checkpoints.MaxAgeDays) * 24 * time.Hour
		o.MaxBytes = int64(s.Checkpoints.MaxSizeMB) << 20
	}
	st, err := checkpoint.Open(o)
	if err != nil {
		return nil
	}
	return st
}

func (a *cli) undoOptions() (undo.Options, error) {
	root, err := projectRoot()
	if err != nil {
		return undo.Options{}, err
	}
	return undo.Options{Store: a.checkpointStore(root, nil), Stdout: a.stdout, Stderr: a.stderr}, nil
}

func (a *cli) checkpointsCmd(args []string) int {
	o, err := a.undoOptions()
	if err != nil {
		return a.fail(err)
	}
	return undo.Checkpoints(o, args)
}

func (a *cli) undoCmd(args []string) int {
	o, err := a.undoOptions()
	if err != nil {
		return a.fail(err)
	}
	return undo.Undo(o, args)
}
