package spec

import (
	"regexp"
	"strings"
	"testing"
)

// SPEC section 1: --version, -h/--help and the help of every subcommand.
func TestVersionAndHelp(t *testing.T) {
	w := newWorld(t)
	r := w.hew("--version")
	if r.code != 0 || !regexp.MustCompile(`\d+\.\d+`).MatchString(r.stdout) {
		t.Fatalf("hew --version: want exit 0 and a version number on stdout:\n%s", r)
	}
	for _, args := range [][]string{{"--help"}, {"-h"}} {
		r := w.hew(args...)
		if r.code != 0 {
			t.Fatalf("hew %s: exit %d\n%s", args[0], r.code, r)
		}
		// Every flag of the SPEC table is documented.
		for _, flag := range []string{"-p, --print", "--output-format", "--provider", "--model", "--api-base", "--mock",
			"--permission-mode", "--plan", "--accept-edits", "--yolo", "--dont-ask", "--auto", "--allowed-tools",
			"--disallowed-tools", "--max-turns", "--goal", "--max-budget-tokens", "--max-cost-usd", "-c, --continue",
			"--resume", "--mcp-config", "--append-system-prompt", "--verbose", "--version", "-h, --help"} {
			if !strings.Contains(r.stdout, flag) {
				t.Errorf("hew %s does not mention %q", args[0], flag)
			}
		}
		for _, sub := range []string{"sessions", "memory", "skills", "mcp", "permissions", "mock-server", "doctor"} {
			if !strings.Contains(r.stdout, sub) {
				t.Errorf("hew %s does not list the %s command", args[0], sub)
			}
		}
	}
}

func TestSubcommandHelp(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		args []string
		want string // a word the usage must contain
	}{
		{[]string{"sessions", "--help"}, "show"},
		{[]string{"memory", "--help"}, "path"},
		{[]string{"skills", "--help"}, "list"},
		{[]string{"mcp", "--help"}, "serve"},
		{[]string{"permissions", "--help"}, "check"},
		{[]string{"permissions", "check", "--help"}, "--mode"},
		{[]string{"mock-server", "--help"}, "--scenario"},
		{[]string{"doctor", "--help"}, "doctor"},
		{[]string{"mcp", "add", "--help"}, "add"},
		{[]string{"sessions", "list", "--help"}, "list"},
		{[]string{"sessions", "show", "--help"}, "show"},
		{[]string{"sessions", "rm", "--help"}, "rm"},
		{[]string{"memory", "list", "--help"}, "list"},
		{[]string{"memory", "add", "--help"}, "add"},
		{[]string{"memory", "show", "--help"}, "show"},
		{[]string{"memory", "rm", "--help"}, "rm"},
		{[]string{"memory", "path", "--help"}, "path"},
		{[]string{"skills", "list", "--help"}, "list"},
	} {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			r := w.hew(tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r)
			}
			if !strings.Contains(strings.ToLower(r.stdout), "usage") || !strings.Contains(r.stdout, tc.want) {
				t.Fatalf("stdout lacks a usage naming %q:\n%s", tc.want, r)
			}
		})
	}
}

// Bad usage and bad config exit 2 (SPEC section 1, exit codes).
func TestBadUsageExits2(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"unknown flag", []string{"--no-such-flag", "-p", "--mock", "hi"}},
		{"bad output format", []string{"-p", "--mock", "--output-format", "yaml", "hi"}},
		{"bad provider", []string{"-p", "--provider", "nosuch", "hi"}},
		{"bad permission mode", []string{"-p", "--mock", "--permission-mode", "reckless", "hi"}},
		{"max-turns not a number", []string{"-p", "--mock", "--max-turns", "many", "hi"}},
		{"max-cost not a number", []string{"-p", "--mock", "--max-cost-usd", "lots", "hi"}},
		{"permissions check bad json", []string{"permissions", "check", "read_file", "{not json"}},
		{"permissions check bad mode", []string{"permissions", "check", "read_file", `{"file_path":"a"}`, "--mode", "nosuch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.hew(tc.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r)
			}
			if strings.TrimSpace(r.stderr) == "" {
				t.Fatalf("no message on stderr\n%s", r)
			}
		})
	}
}

func TestInvalidSettingsExit2NamingFile(t *testing.T) {
	w := newWorld(t)
	w.write(".hew/settings.json", "{\n  \"permissions\": {bad}\n}\n")
	for _, args := range [][]string{
		{"-p", "--mock", "hi"},
		{"permissions", "check", "read_file", `{"file_path":"a"}`},
	} {
		r := w.hew(args...)
		if r.code != 2 {
			t.Fatalf("hew %q with broken settings: exit %d, want 2\n%s", args, r.code, r)
		}
		if !strings.Contains(r.stderr, "settings.json") || !regexp.MustCompile(`:2:\d+`).MatchString(r.stderr) {
			t.Fatalf("the error must name the file and line:col:\n%s", r)
		}
	}
}

// Every mode flag and shorthand reaches the session (init's permission_mode).
func TestModeFlags(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		args []string
		mode string
	}{
		{nil, "default"},
		{[]string{"--permission-mode", "default"}, "default"},
		{[]string{"--permission-mode", "plan"}, "plan"},
		{[]string{"--permission-mode", "acceptEdits"}, "acceptEdits"},
		{[]string{"--permission-mode", "bypassPermissions"}, "bypassPermissions"},
		{[]string{"--permission-mode", "dontAsk"}, "dontAsk"},
		{[]string{"--permission-mode", "auto"}, "auto"},
		{[]string{"--plan"}, "plan"},
		{[]string{"--accept-edits"}, "acceptEdits"},
		{[]string{"--yolo"}, "bypassPermissions"},
		{[]string{"--dont-ask"}, "dontAsk"},
		{[]string{"--auto"}, "auto"},
	} {
		t.Run(strings.Join(append([]string{"mode"}, tc.args...), "_"), func(t *testing.T) {
			args := append([]string{"-p", "--mock", "--output-format", "stream-json"}, tc.args...)
			r := w.hew(append(args, "hi")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			init := ofType(events(t, r), "init")
			if len(init) != 1 || init[0].str("permission_mode") != tc.mode {
				t.Fatalf("init permission_mode: want %q\n%s", tc.mode, r)
			}
		})
	}
}

// The settings' defaultMode is the mode when no flag is given; a flag wins.
func TestDefaultModeFromSettings(t *testing.T) {
	w := newWorld(t)
	w.write(".hew/settings.json", `{"permissions":{"defaultMode":"acceptEdits"}}`)
	r := w.hew("-p", "--mock", "--trust-project", "--output-format", "stream-json", "hi")
	if m := ofType(events(t, r), "init")[0].str("permission_mode"); m != "acceptEdits" {
		t.Fatalf("permission_mode = %q, want acceptEdits from settings\n%s", m, r)
	}
	r = w.hew("-p", "--mock", "--plan", "--output-format", "stream-json", "hi")
	if m := ofType(events(t, r), "init")[0].str("permission_mode"); m != "plan" {
		t.Fatalf("permission_mode = %q, want plan from --plan\n%s", m, r)
	}
}

// A prompt piped on stdin runs one task and exits (SPEC section 1).
func TestPromptFromStdin(t *testing.T) {
	w := newWorld(t)
	w.write("greeting.txt", "hello from stdin test\n")
	r := w.exec(call{args: []string{"--mock", "--output-format", "json"}, stdin: "read greeting.txt\n"})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	res := jsonResult(t, r)
	if res.str("stop_reason") != "completed" || !strings.Contains(res.str("result"), "hello from stdin test") {
		t.Fatalf("piped prompt was not run as a task:\n%s", r)
	}
}

// Text output (the default) prints the final answer on stdout.
func TestTextOutput(t *testing.T) {
	w := newWorld(t)
	w.write("greeting.txt", "hello text mode\n")
	r := w.hew("-p", "--mock", "read greeting.txt")
	if r.code != 0 || !strings.Contains(r.stdout, "hello text mode") {
		t.Fatalf("text output lacks the answer:\n%s", r)
	}
	if strings.HasPrefix(strings.TrimSpace(r.stdout), "{") {
		t.Fatalf("text output looks like JSON:\n%s", r)
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Fatalf("NO_COLOR set but stdout has ANSI escapes:\n%q", r.stdout)
	}
}
