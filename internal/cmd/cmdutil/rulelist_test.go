package cmdutil

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitRules(t *testing.T) {
	for in, want := range map[string][]string{
		"Bash(git diff:*),Edit":      {"Bash(git diff:*)", "Edit"},
		"Bash(echo a, b) Read":       {"Bash(echo a, b)", "Read"},
		" Edit ,, Write ":            {"Edit", "Write"},
		"Bash(x (y) z),Read(src/**)": {"Bash(x (y) z)", "Read(src/**)"},
		"":                           nil,
	} {
		if got := SplitRules(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func FuzzSplitRules(f *testing.F) {
	f.Add("Bash(git diff:*),Edit")
	f.Add("Bash(echo (a,b)) x")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range SplitRules(s) {
			if r == "" || strings.TrimSpace(r) != r {
				t.Fatalf("%q: piece %q", s, r)
			}
		}
		_ = ExpandRuleFlags([]string{"--allowedTools", s, s})
	})
}
