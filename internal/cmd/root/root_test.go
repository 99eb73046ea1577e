package root_test

import (
	"errors"
	rootcmd "github.com/hew-dev/hew/internal/cmd/root"
	"reflect"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/permission"
)

func TestParseFlagsModes(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    permission.Mode
		wantErr string
	}{
		{args: nil, want: ""},
		{args: []string{"--plan"}, want: permission.ModePlan},
		{args: []string{"--accept-edits"}, want: permission.ModeAcceptEdits},
		{args: []string{"--yolo"}, want: permission.ModeBypass},
		{args: []string{"--dont-ask"}, want: permission.ModeDontAsk},
		{args: []string{"--auto"}, want: permission.ModeAuto},
		{args: []string{"--permission-mode", "acceptEdits"}, want: permission.ModeAcceptEdits},
		{args: []string{"--permission-mode=bypassPermissions"}, want: permission.ModeBypass},
		{args: []string{"--permission-mode", "accept-edits"}, want: permission.ModeAcceptEdits},
		{args: []string{"--permission-mode", "nope"}, wantErr: "unknown permission mode"},
		{args: []string{"--plan", "--yolo"}, wantErr: "only one permission mode"},
	} {
		o, err := rootcmd.Parse(tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err = %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if m, _ := o.Perms.Modes.Pick(); m != tc.want {
			t.Errorf("%v: mode %q, want %q", tc.args, m, tc.want)
		}
	}
}

func TestParseFlagsValues(t *testing.T) {
	o, err := rootcmd.Parse([]string{"-p", "--output-format", "stream-json", "--max-turns", "7", "--allowed-tools", "run_shell(npm test*),edit_file",
		"--disallowed-tools", "web_fetch", "--max-budget-tokens", "1000", "--max-cost-usd", "0.5", "--mcp-config", "a.json", "--mcp-config", "b.json",
		"--append-system-prompt", "be brief", "--verbose", "fix", "the", "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Print || o.OutputFormat != "stream-json" || o.MaxTurns != 7 || o.MaxBudgetTokens != 1000 || o.MaxCostUSD != 0.5 || !o.Verbose || o.AppendSystemPrompt != "be brief" {
		t.Errorf("options = %+v", o)
	}
	if !reflect.DeepEqual(o.Perms.Allowed, []string{"run_shell(npm test*)", "edit_file"}) || !reflect.DeepEqual(o.Perms.Disallowed, []string{"web_fetch"}) {
		t.Errorf("rules = %q %q", o.Perms.Allowed, o.Perms.Disallowed)
	}
	if !reflect.DeepEqual(o.MCPConfig, []string{"a.json", "b.json"}) {
		t.Errorf("mcp configs = %q", o.MCPConfig)
	}
	if strings.Join(o.Args, " ") != "fix the test" {
		t.Errorf("prompt args = %q", o.Args)
	}
}

func TestParseFlagsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--provider", "gemini"}, "unknown --provider"},
		{[]string{"--mock", "--provider", "openai"}, "conflicts"},
		{[]string{"--max-turns", "0"}, "at least 1"},
		{[]string{"--no-such-flag"}, "unknown flag"},
		{[]string{"-c", "--resume", "x"}, "not both"},
	} {
		if _, err := rootcmd.Parse(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := rootcmd.Parse([]string{"--help"}); !errors.Is(err, rootcmd.ErrHelp) {
		t.Errorf("--help: err = %v", err)
	}
}

func TestOutputFormatImpliesHeadless(t *testing.T) {
	o, err := rootcmd.Parse([]string{"--output-format", "json", "hi"})
	if err != nil || !o.Print {
		t.Errorf("print = %v, err = %v", o != nil && o.Print, err)
	}
}

func TestResumeWithAndWithoutID(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		wantResume string
		wantArgs   string
	}{
		{[]string{"--resume", "01abc", "go", "on"}, "01abc", "go on"},
		{[]string{"--resume=01abc"}, "01abc", ""},
		{[]string{"--resume"}, rootcmd.ResumePick, ""},
		{[]string{"--resume", "--verbose"}, rootcmd.ResumePick, ""},
		{[]string{"--", "--resume"}, "", "--resume"},
	} {
		o, err := rootcmd.Parse(tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if o.Resume != tc.wantResume || strings.Join(o.Args, " ") != tc.wantArgs {
			t.Errorf("%v: resume %q args %q", tc.args, o.Resume, o.Args)
		}
	}
}

func TestRootHelpListsEveryFlagAndCommand(t *testing.T) {
	h := rootcmd.Help()
	for _, want := range []string{"--print", "--output-format", "--provider", "--mock", "--model", "--api-base", "--permission-mode",
		"--plan", "--accept-edits", "--yolo", "--dont-ask", "--auto", "--allowed-tools", "--disallowed-tools", "--max-turns", "--goal",
		"--max-budget-tokens", "--max-cost-usd", "--continue", "--resume", "--mcp-config", "--append-system-prompt", "--verbose", "--version",
		"sessions", "mcp", "permissions check", "mock-server", "doctor"} {
		if !strings.Contains(h, want) {
			t.Errorf("help lacks %s", want)
		}
	}
}

func TestNoSandboxFlag(t *testing.T) {
	o, err := rootcmd.Parse([]string{"--yolo", "-p", "x"})
	if err != nil || o.NoSandbox {
		t.Fatalf("--yolo implied --no-sandbox: %+v %v", o, err)
	}
	if o, err = rootcmd.Parse([]string{"--no-sandbox", "-p", "x"}); err != nil || !o.NoSandbox {
		t.Fatalf("--no-sandbox: %+v %v", o, err)
	}
}
