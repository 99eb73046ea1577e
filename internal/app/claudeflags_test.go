package app

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/permission"
)

// Claude Code command lines, as scripts and muscle memory type them, and
// the options they must produce (issue 15 item 1).
func TestClaudeStyleCommandLines(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args                []string
		allowed, disallowed []string
		prompt              string
		mode                permission.Mode
		check               func(o *options) bool
	}{
		{args: []string{"-p", "--allowedTools", "Bash(git diff:*)", "Edit", "read greeting.txt"},
			allowed: []string{"Bash(git diff:*)", "Edit"}, prompt: "read greeting.txt"},
		{args: []string{"--allowed-tools", "Bash(git diff:*) Edit", "read", "greeting.txt"},
			allowed: []string{"Bash(git diff:*)", "Edit"}, prompt: "read greeting.txt"},
		{args: []string{"--allowedTools", "Bash(echo a,b)", "go"}, allowed: []string{"Bash(echo a,b)"}, prompt: "go"},
		{args: []string{"--allowedTools=Bash(npm run test:*),Read,mcp__github", "fix it"},
			allowed: []string{"Bash(npm run test:*)", "Read", "mcp__github"}, prompt: "fix it"},
		{args: []string{"--allowedTools", "Bash(git log:*)", "Bash(git show:*)", "--disallowedTools", "Bash(rm:*)", "WebFetch", "summarize"},
			allowed: []string{"Bash(git log:*)", "Bash(git show:*)"}, disallowed: []string{"Bash(rm:*)", "WebFetch"}, prompt: "summarize"},
		{args: []string{"--disallowed-tools", "Bash(rm -rf *)", "--", "Edit"}, disallowed: []string{"Bash(rm -rf *)"}, prompt: "Edit"},
		{args: []string{"--dangerously-skip-permissions", "-p", "x"}, mode: permission.ModeBypass, prompt: "x"},
		{args: []string{"--permission-mode", "acceptEdits", "--add-dir", dir, "--add-dir", dir, "x"}, mode: permission.ModeAcceptEdits, prompt: "x",
			check: func(o *options) bool { return reflect.DeepEqual(o.perms.AddDirs, []string{dir, dir}) }},
		{args: []string{"--system-prompt", "You are terse.", "--append-system-prompt", "Say hi.", "x"}, prompt: "x",
			check: func(o *options) bool { return o.systemPrompt == "You are terse." && o.appendSystemPrompt == "Say hi." }},
		{args: []string{"-r", "abc123", "more"}, prompt: "more",
			check: func(o *options) bool { return o.resumeSet && o.resume == "abc123" }},
		{args: []string{"-p", "-r"}, check: func(o *options) bool { return o.resumeSet && o.resume == resumePick }},
		{args: []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"},
			check: func(o *options) bool { return o.inputFormat == "stream-json" && o.print && o.verbose }},
		{args: []string{"--model", "sonnet", "--max-turns", "3", "--mcp-config", "m.json", "-p", "q"}, prompt: "q",
			check: func(o *options) bool { return o.model == "sonnet" && o.maxTurns == 3 && o.mcpConfig[0] == "m.json" }},
	} {
		o, err := parseFlags(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(o.perms.Allowed, tc.allowed) || !reflect.DeepEqual(o.perms.Disallowed, tc.disallowed) {
			t.Errorf("%q: allowed %q disallowed %q, want %q %q", tc.args, o.perms.Allowed, o.perms.Disallowed, tc.allowed, tc.disallowed)
		}
		if got := strings.Join(o.args, " "); got != tc.prompt {
			t.Errorf("%q: prompt %q, want %q", tc.args, got, tc.prompt)
		}
		if m, _ := o.perms.Modes.Pick(); m != tc.mode {
			t.Errorf("%q: mode %q, want %q", tc.args, m, tc.mode)
		}
		if tc.check != nil && !tc.check(o) {
			t.Errorf("%q: options %+v", tc.args, o)
		}
	}
}

func TestClaudeStyleFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--allowedTools"}, "needs an argument"},
		{[]string{"--allowedTools", ",", "x"}, "at least one rule"},
		{[]string{"--add-dir", "/no/such/dir/anywhere", "x"}, "not a directory"},
		{[]string{"--input-format", "xml", "-p", "x"}, "unknown --input-format"},
		{[]string{"--input-format", "stream-json", "-p"}, "needs --output-format stream-json"},
		{[]string{"--dangerously-skip-permissions", "--plan", "x"}, "only one permission mode"},
	} {
		if _, err := parseFlags(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
