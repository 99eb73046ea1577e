package root_test

import (
	rootcmd "github.com/hew-dev/hew/internal/cmd/root"
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
		check               func(o *rootcmd.Options) bool
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
			check: func(o *rootcmd.Options) bool { return reflect.DeepEqual(o.Perms.AddDirs, []string{dir, dir}) }},
		{args: []string{"--system-prompt", "You are terse.", "--append-system-prompt", "Say hi.", "x"}, prompt: "x",
			check: func(o *rootcmd.Options) bool {
				return o.SystemPrompt == "You are terse." && o.AppendSystemPrompt == "Say hi."
			}},
		{args: []string{"-r", "abc123", "more"}, prompt: "more",
			check: func(o *rootcmd.Options) bool { return o.ResumeSet && o.Resume == "abc123" }},
		{args: []string{"-p", "-r"}, check: func(o *rootcmd.Options) bool { return o.ResumeSet && o.Resume == rootcmd.ResumePick }},
		{args: []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"},
			check: func(o *rootcmd.Options) bool { return o.InputFormat == "stream-json" && o.Print && o.Verbose }},
		{args: []string{"--model", "sonnet", "--max-turns", "3", "--mcp-config", "m.json", "-p", "q"}, prompt: "q",
			check: func(o *rootcmd.Options) bool {
				return o.Model == "sonnet" && o.MaxTurns == 3 && o.MCPConfig[0] == "m.json"
			}},
	} {
		o, err := rootcmd.Parse(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(o.Perms.Allowed, tc.allowed) || !reflect.DeepEqual(o.Perms.Disallowed, tc.disallowed) {
			t.Errorf("%q: allowed %q disallowed %q, want %q %q", tc.args, o.Perms.Allowed, o.Perms.Disallowed, tc.allowed, tc.disallowed)
		}
		if got := strings.Join(o.Args, " "); got != tc.prompt {
			t.Errorf("%q: prompt %q, want %q", tc.args, got, tc.prompt)
		}
		if m, _ := o.Perms.Modes.Pick(); m != tc.mode {
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
		{[]string{"--dangerously-skip-permissions", "--plan", "x"}, "only one permission mode"},
	} {
		if _, err := rootcmd.Parse(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
