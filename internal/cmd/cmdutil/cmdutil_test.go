package cmdutil

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/permission"
)

func TestFlagUsages(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.BoolP("verbose", "v", false, "say more")
	fs.String("mode", "default", "permission `MODE`")
	fs.Int("turns", 0, "limit")
	got := FlagUsages(fs)
	for _, want := range []string{"  -v, --verbose   ", "say more\n", "--mode MODE", "(default default)", "--turns int"} {
		if !strings.Contains(got, want) {
			t.Errorf("usage lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[=true|false]") || strings.Contains(got, "default 0") || strings.Contains(got, "default false") {
		t.Errorf("usage has pflag's decoration or zero defaults:\n%s", got)
	}
}

func TestWantsHelp(t *testing.T) {
	for args, want := range map[string]bool{"-h": true, "list --help": true, "help": true, "list": false, "-- --help": false, "": false} {
		if got := WantsHelp(strings.Fields(args)); got != want {
			t.Errorf("WantsHelp(%q) = %v", args, got)
		}
	}
}

func TestOptionalValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"--resume 01abc go on", "--resume 01abc go on"},
		{"--resume=01abc", "--resume=01abc"},
		{"--resume", "--resume=?"},
		{"-r", "--resume=?"},
		{"-p -r --verbose x", "-p --resume=? --verbose x"},
		{"-r -", "--resume=? -"},
		{"-- --resume", "-- --resume"},
		{"x -- -r", "x -- -r"},
	} {
		if got := strings.Join(OptionalValue(strings.Fields(tc.in), "resume", "r", "?"), " "); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// An alias sets the flag it stands for, a boolean one without a value,
// and is not listed.
func TestAlias(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	yolo := fs.Bool("yolo", false, "skip the questions")
	rules := fs.StringArray("allowed-tools", nil, "extra `RULES`")
	Alias(fs, "dangerously-skip-permissions", "yolo")
	Alias(fs, "allowedTools", "allowed-tools")
	if err := fs.Parse([]string{"--dangerously-skip-permissions", "--allowedTools", "Edit", "--allowed-tools=Read"}); err != nil {
		t.Fatal(err)
	}
	if !*yolo || strings.Join(*rules, ",") != "Edit,Read" {
		t.Errorf("yolo %v rules %q", *yolo, *rules)
	}
	if u := FlagUsages(fs); strings.Contains(u, "dangerously") || strings.Contains(u, "allowedTools") || !strings.Contains(u, "--yolo") {
		t.Errorf("usage lists the aliases or lost the flag:\n%s", u)
	}
}

// The permission flags fill a permission.Flags, in both spellings.
func TestPermissionFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	var f permission.Flags
	PermissionFlags(fs, &f)
	ClaudeAliases(fs)
	err := fs.Parse([]string{"--plan", "--allowedTools", "Edit", "--disallowed-tools", "Bash(rm:*)", "--add-dir", "/tmp", "--dangerously-skip-permissions"})
	if err != nil || !f.Modes.Plan || !f.Modes.Yolo || strings.Join(f.Allowed, ",") != "Edit" || strings.Join(f.Disallowed, ",") != "Bash(rm:*)" || strings.Join(f.AddDirs, ",") != "/tmp" {
		t.Errorf("%+v %v", f, err)
	}
}
