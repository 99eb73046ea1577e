package cmdutil

import (
	"strings"

	"github.com/hew-dev/hew/internal/permission"
)

// ruleFlags are the flags whose value is a list of permission rules, in
// hew's and Claude Code's spellings.
var ruleFlags = map[string]bool{
	"--allowed-tools": true, "--allowedTools": true,
	"--disallowed-tools": true, "--disallowedTools": true,
}

// SplitRules splits a rule list at commas and spaces outside parentheses,
// so "Bash(git diff:*),Edit" is two rules and "Bash(echo a, b)" one.
func SplitRules(s string) []string { return permission.SplitRules(s) }

// isRuleList reports whether every rule of s parses as a permission rule
// (a known tool, its Claude Code alias or an mcp__ name, with an optional
// pattern).
func isRuleList(s string) bool {
	rules := SplitRules(s)
	if len(rules) == 0 {
		return false
	}
	for _, r := range rules {
		if _, err := permission.ParseRule(r, ""); err != nil {
			return false
		}
	}
	return true
}

// ExpandRuleFlags rewrites the rule-list flags into one --flag=RULE per
// rule, before pflag sees them. Like Claude Code, a rule flag takes its
// value and then every following argument that is itself a rule list
// ("--allowedTools Bash(git diff:*) Edit 'fix it'"); the first argument that
// is not a rule (the prompt, another flag, "--") ends the list, so a list
// never swallows the prompt. A prompt that is itself a rule ("Edit") must
// come before the flag, after "--", or as -p's value.
func ExpandRuleFlags(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, value, hasValue := strings.Cut(a, "=")
		if !ruleFlags[name] {
			out = append(out, a)
			continue
		}
		var values []string
		if hasValue {
			values = append(values, value)
		} else if i+1 < len(args) {
			i++
			values = append(values, args[i])
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && isRuleList(args[i+1]) {
				i++
				values = append(values, args[i])
			}
		} else {
			out = append(out, a) // pflag reports the missing value
			continue
		}
		n := 0
		for _, v := range values {
			for _, r := range SplitRules(v) {
				out = append(out, name+"="+r)
				n++
			}
		}
		if n == 0 {
			out = append(out, name+"=") // an empty list is an error below
		}
	}
	return out
}
