package app

import (
	"os/exec"

	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/cmd/undo"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/session"
)

// checkpointStore opens the project's checkpoint store (checkpoint.ForProject):
// the shadow git store when git is installed, the copy store otherwise.
func (a *cli) checkpointStore(root string, s *config.Settings) *checkpoint.Store {
	o := checkpoint.Options{Root: root, StateDir: session.ProjectDir(a.hewHome(), root), Env: a.environ}
	if git, err := exec.LookPath("git"); err == nil {
		o.Git = git
	}
	return checkpoint.ForProject(o, a.homeDir(), s)
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
