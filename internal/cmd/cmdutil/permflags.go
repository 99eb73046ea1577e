package cmdutil

import (
	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/permission"
)

// PermissionFlags declares into f the flags that decide what may run
// unasked: the mode and its shorthands, extra rules and directories, with
// Claude Code's spellings hidden. Sessions and `hew mcp serve` take the
// same ones.
func PermissionFlags(fs *pflag.FlagSet, f *permission.Flags) {
	fs.StringVar(&f.Modes.Mode, "permission-mode", "", "permission `MODE`: default, plan, acceptEdits, bypassPermissions, dontAsk or auto")
	fs.BoolVar(&f.Modes.Plan, "plan", false, "shorthand for --permission-mode plan")
	fs.BoolVar(&f.Modes.AcceptEdits, "accept-edits", false, "shorthand for --permission-mode acceptEdits")
	fs.BoolVar(&f.Modes.Yolo, "yolo", false, "shorthand for --permission-mode bypassPermissions")
	fs.BoolVar(&f.Modes.DontAsk, "dont-ask", false, "shorthand for --permission-mode dontAsk")
	fs.BoolVar(&f.Modes.Auto, "auto", false, "shorthand for --permission-mode auto")
	fs.StringArrayVar(&f.Allowed, "allowed-tools", nil, "extra allow `RULES` for this run, e.g. 'run_shell(npm test*),edit_file' or several arguments")
	fs.StringArrayVar(&f.Disallowed, "disallowed-tools", nil, "extra deny `RULES` for this run")
	fs.StringArrayVar(&f.AddDirs, "add-dir", nil, "an additional `DIR` for this run, like additionalDirectories (repeatable)")
}

// ClaudeAliases adds Claude Code's spellings of the permission flags,
// hidden from the help; call it once every flag is declared.
func ClaudeAliases(fs *pflag.FlagSet) {
	Alias(fs, "allowedTools", "allowed-tools")
	Alias(fs, "disallowedTools", "disallowed-tools")
	Alias(fs, "dangerously-skip-permissions", "yolo")
}
