package app

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/session"
)

const permissionsUsage = `usage: hew permissions check TOOL JSON_INPUT [--mode MODE]

Prints the decision a session started in this directory would make about
one tool call, as one JSON line: {"decision":"allow|ask|deny","reason":"...","source":"..."}.
It reads the same settings files (user, project, local) as a session.

  hew permissions check run_shell '{"command":"rm -rf build"}'
  hew permissions check edit_file '{"file_path":"src/main.go","old_string":"a","new_string":"b"}' --mode acceptEdits

Flags:
`

func (a *cli) permissionsCmd(args []string) int {
	var mode string
	var allowed, disallowed []string
	fs := pflag.NewFlagSet("permissions", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&mode, "mode", "", "permission mode (default: the settings' defaultMode)")
	fs.StringSliceVar(&allowed, "allowed-tools", nil, "extra allow rules, as for a session")
	fs.StringSliceVar(&disallowed, "disallowed-tools", nil, "extra deny rules, as for a session")
	trustProject := fs.Bool("trust-project", false, "apply the project's widening settings, as for a session")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return a.errorf(ExitUsage, "permissions: %v", err)
	}
	rest := fs.Args()
	if *help || (len(rest) > 0 && rest[0] == "help") {
		fmt.Fprint(a.stdout, permissionsUsage+flagUsages(fs))
		return ExitOK
	}
	if len(rest) != 3 || rest[0] != "check" {
		fmt.Fprint(a.stderr, permissionsUsage+flagUsages(fs))
		return ExitUsage
	}
	input := rest[2]
	root, err := projectRoot()
	if err != nil {
		return a.fail(err)
	}
	settings, err := a.loadTrusted(root, *trustProject, false)
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	b, err := buildBrakes(brakeInputs{
		root: root, homeDir: a.homeDir(), hewHome: a.hewHome(), stateDir: session.ProjectDir(a.hewHome(), root),
		settings: settings, allowed: allowed, disallowed: disallowed,
	})
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	eng := b.eng
	m := eng.DefaultMode()
	if mode != "" {
		if m, err = parseMode(mode); err != nil {
			return a.errorf(ExitUsage, "%v", err)
		}
	}
	line, err := permission.Explain(eng, rest[1], []byte(input), m)
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	fmt.Fprintf(a.stdout, "%s\n", line)
	return ExitOK
}
