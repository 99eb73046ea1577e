// Package permissions is `hew permissions check`: the decision a session
// started in this directory would make about one tool call, as one JSON line.
package permissions

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/cmd/cmdutil"
	"github.com/hew-dev/hew/internal/permission"
)

const permissionsUsage = `usage: hew permissions check TOOL JSON_INPUT [--mode MODE]

Prints the decision a session started in this directory would make about
one tool call, as one JSON line: {"decision":"allow|ask|deny","reason":"...","source":"..."}.
It reads the same settings files (user, project, local) as a session.

  hew permissions check run_shell '{"command":"rm -rf build"}'
  hew permissions check edit_file '{"file_path":"src/main.go","old_string":"a","new_string":"b"}' --mode acceptEdits

Flags:
`

// Exit codes (SPEC section 1).
const (
	exitOK    = 0
	exitUsage = 2
)

// Options is what the command needs. Engine builds the permission engine
// exactly as a session would, with the extra allow and deny rules given;
// trust applies the project's widening settings (--trust-project).
type Options struct {
	Stdout, Stderr io.Writer
	Engine         func(allowed, disallowed []string, trust bool) (*permission.Engine, error)
}

// Run runs `hew permissions ARGS` and returns the exit code.
func Run(o Options, args []string) int {
	var mode string
	var allowed, disallowed []string
	fs := pflag.NewFlagSet("permissions", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&mode, "mode", "", "permission mode (default: the settings' defaultMode)")
	fs.StringArrayVar(&allowed, "allowed-tools", nil, "extra allow rules, as for a session")
	fs.StringArrayVar(&disallowed, "disallowed-tools", nil, "extra deny rules, as for a session")
	fs.Var(fs.Lookup("allowed-tools").Value, "allowedTools", "")
	fs.Var(fs.Lookup("disallowed-tools").Value, "disallowedTools", "")
	fs.Lookup("allowedTools").Hidden, fs.Lookup("disallowedTools").Hidden = true, true
	trustProject := fs.Bool("trust-project", false, "apply the project's widening settings, as for a session")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(cmdutil.ExpandRuleFlags(args)); err != nil {
		fmt.Fprintf(o.Stderr, "hew: permissions: %v\n", err)
		return exitUsage
	}
	rest := fs.Args()
	if *help || (len(rest) > 0 && rest[0] == "help") {
		fmt.Fprint(o.Stdout, permissionsUsage+cmdutil.FlagUsages(fs))
		return exitOK
	}
	if len(rest) != 3 || rest[0] != "check" {
		fmt.Fprint(o.Stderr, permissionsUsage+cmdutil.FlagUsages(fs))
		return exitUsage
	}
	input := rest[2]
	eng, err := o.Engine(allowed, disallowed, *trustProject)
	if err != nil {
		return usageError(o, err)
	}
	m := eng.DefaultMode()
	if mode != "" {
		if m, err = permission.ParseMode(mode); err != nil {
			return usageError(o, err)
		}
	}
	line, err := explain(eng, rest[1], []byte(input), m)
	if err != nil {
		return usageError(o, err)
	}
	fmt.Fprintf(o.Stdout, "%s\n", line)
	return exitOK
}

func usageError(o Options, err error) int {
	fmt.Fprintf(o.Stderr, "hew: %v\n", err)
	return exitUsage
}
