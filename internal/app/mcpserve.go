package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/cmd/cmdutil"
)

// serveFlags parses `hew mcp serve`'s flags: the permission flags of a
// session (mode, rules, directories, trust). Anything else is an error, so a
// misspelt flag never silently serves with defaults.
func serveFlags(args []string) (*options, error) {
	o := &options{maxTurns: 50, print: true} // stdin is the protocol: never ask
	fs := pflag.NewFlagSet("hew mcp serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	permissionFlags(fs, o)
	fs.BoolVar(&o.trustProject, "trust-project", false, "")
	claudeAliases(fs)
	if err := fs.Parse(cmdutil.ExpandRuleFlags(args)); err != nil {
		return nil, usagef("hew mcp serve: %v (it takes --permission-mode, --plan, --accept-edits, --yolo, --dont-ask, --auto, --allowed-tools, --disallowed-tools, --add-dir, --trust-project)", err)
	}
	if fs.NArg() > 0 {
		return nil, usagef("hew mcp serve takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
	o.outputFormat, o.inputFormat = "text", "text"
	if err := o.validate(); err != nil {
		return nil, usageErr(fmt.Errorf("hew mcp serve: %w", err))
	}
	return o, nil
}

// serveHint says what allows a call `hew mcp serve` denied: nobody is
// asked over MCP, so only the server's own flags and settings can.
const serveHint = "hew mcp serve has nobody to ask: to allow it, start the server with --allowed-tools RULE (e.g. 'Edit(src/**)'), a mode such as --accept-edits, or put an allow rule in .hew/settings.json"
