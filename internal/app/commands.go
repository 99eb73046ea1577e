package app

import (
	"fmt"
	rootcmd "github.com/hew-dev/hew/internal/cmd/root"
	"github.com/hew-dev/hew/internal/term"

	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/cmd/doctor"
	memorycmd "github.com/hew-dev/hew/internal/cmd/memory"
	mockservercmd "github.com/hew-dev/hew/internal/cmd/mockserver"
	"github.com/hew-dev/hew/internal/cmd/permissions"
	sessionscmd "github.com/hew-dev/hew/internal/cmd/sessions"
	skillscmd "github.com/hew-dev/hew/internal/cmd/skills"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/memory"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/sandbox"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/skills"
)

// command is the subcommand `hew NAME ...`, if NAME is one.
func (a *cli) command(name string) (func(args []string) int, bool) {
	run, ok := map[string]func([]string) int{
		"sessions":    a.sessionsCmd,
		"skills":      a.skillsCmd,
		"memory":      a.memoryCmd,
		"mcp":         a.mcpCmd,
		"permissions": a.permissionsCmd,
		"checkpoints": a.checkpointsCmd,
		"undo":        a.undoCmd,
		"mock-server": a.mockServerCmd,
		"doctor":      a.doctorCmd,
		"help":        a.helpCmd,
		"version":     func([]string) int { fmt.Fprintln(a.stdout, versionString()); return ExitOK },
	}[name]
	return run, ok
}

func (a *cli) helpCmd(args []string) int {
	if len(args) > 0 && args[0] != "help" {
		if run, ok := a.command(args[0]); ok {
			return run([]string{"--help"})
		}
	}
	fmt.Fprint(a.stdout, rootcmd.Help())
	return ExitOK
}

func (a *cli) sessionsCmd(args []string) int {
	root, err := projectRoot()
	if err != nil {
		return a.fail(err)
	}
	return sessionscmd.Run(sessionscmd.Options{Stdout: a.stdout, Stderr: a.stderr, HewHome: a.hewHome(), Root: root}, args)
}

func (a *cli) skillsCmd(args []string) int {
	root, err := projectRoot()
	if err != nil {
		return a.fail(err)
	}
	return skillscmd.Run(skillscmd.Options{Stdout: a.stdout, Stderr: a.stderr, Roots: skills.Roots{Project: root, Home: a.homeDir(), HewHome: a.hewHome()}}, args)
}

func (a *cli) memoryCmd(args []string) int {
	root, err := projectRoot()
	if err != nil {
		return a.fail(err)
	}
	return memorycmd.Run(memorycmd.Options{Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr, Store: memory.Open(session.ProjectDir(a.hewHome(), root))}, args)
}

func (a *cli) doctorCmd(args []string) int {
	root, err := projectRoot()
	return doctor.Run(doctor.Options{
		Stdout: a.stdout, Stderr: a.stderr, Root: root, RootErr: err, HewHome: a.hewHome(), UserHome: a.homeDir(),
		Version: versionString(), Getenv: a.getenv, LookupEnv: a.lookup,
		Sandbox: func(s *config.Settings) *sandbox.Sandbox {
			return sandbox.New(sandbox.FromSettings(s, false, sandbox.Policy{Root: root, Home: a.homeDir(), Getenv: a.getenv}))
		},
		Checkpoints: func(s *config.Settings) *checkpoint.Store { return a.checkpointStore(root, s) },
	}, args)
}

func (a *cli) permissionsCmd(args []string) int {
	return permissions.Run(permissions.Options{
		Stdout: a.stdout, Stderr: a.stderr,
		Engine: func(allowed, disallowed []string, trust bool) (*permission.Engine, error) {
			root, err := projectRoot()
			if err != nil {
				return nil, err
			}
			settings, err := a.loadTrusted(root, trust, false)
			if err != nil {
				return nil, err
			}
			eng, _, err := a.brakes(root, settings, permission.Flags{Allowed: allowed, Disallowed: disallowed}, false)
			return eng, err
		},
	}, args)
}

func (a *cli) mockServerCmd(args []string) int {
	ctx, stop := term.InterruptContext() // caught before the address is printed
	defer stop()
	return mockservercmd.Run(mockservercmd.Options{Stdout: a.stdout, Stderr: a.stderr, Context: ctx}, args)
}
