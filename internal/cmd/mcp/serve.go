package mcp

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/cmd/cmdutil"
	"github.com/hew-dev/hew/internal/permission"
)

// ServeHint says what allows a call `hew mcp serve` denied: nobody is
// asked over MCP, so only the server's own flags and settings can.
const ServeHint = "hew mcp serve has nobody to ask: to allow it, start the server with --allowed-tools RULE (e.g. 'Edit(src/**)'), a mode such as --accept-edits, or put an allow rule in .hew/settings.json"

// ServeFlags parses `hew mcp serve`'s flags: the permission flags of a
// session and --trust-project. Anything else is an error, so a misspelt
// flag never silently serves with defaults; every error is the user's to
// fix.
func ServeFlags(args []string) (f permission.Flags, trustProject bool, err error) {
	fs := pflag.NewFlagSet("hew mcp serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cmdutil.PermissionFlags(fs, &f)
	fs.BoolVar(&trustProject, "trust-project", false, "")
	cmdutil.ClaudeAliases(fs)
	if err := fs.Parse(cmdutil.ExpandRuleFlags(args)); err != nil {
		return f, false, fmt.Errorf("hew mcp serve: %v (it takes --permission-mode, --plan, --accept-edits, --yolo, --dont-ask, --auto, --allowed-tools, --disallowed-tools, --add-dir, --trust-project)", err)
	}
	if fs.NArg() > 0 {
		return f, false, fmt.Errorf("hew mcp serve takes no arguments, got %q", strings.Join(fs.Args(), " "))
	}
	if err := f.Check(); err != nil {
		return f, false, fmt.Errorf("hew mcp serve: %w", err)
	}
	return f, trustProject, nil
}
