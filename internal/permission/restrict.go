package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Restriction bounds which tool calls may run at all, such as a fork
// skill's allowed-tools: a call that no rule covers is refused whatever the
// mode or the allow rules say. It only narrows; it never grants, so a
// project file cannot widen permissions through it.
type Restriction struct {
	e     *Engine
	rules []*Rule
}

// NewRestriction parses rules (TOOL or TOOL(PATTERN), hew names or Claude
// Code aliases). root and home resolve paths and shell commands as the
// session's engine does.
func NewRestriction(rules []string, root, home string) (*Restriction, error) {
	e, err := New(Options{Root: root, HomeDir: home})
	if err != nil {
		return nil, err
	}
	r := &Restriction{e: e}
	var errs []error
	for _, text := range rules {
		rule, err := ParseRule(text, home)
		if err != nil {
			errs = append(errs, fmt.Errorf("%q: %w", text, err))
			continue
		}
		r.rules = append(r.rules, rule)
	}
	return r, errors.Join(errs...)
}

// Covers reports whether some rule names tool, so a tool list offered
// under the restriction can leave the others out.
func (r *Restriction) Covers(tool string) bool {
	for _, rule := range r.rules {
		if rule.appliesTo(tool) {
			return true
		}
	}
	return false
}

// Permits reports whether the restriction lets this call run, and if not,
// why. A shell pattern must cover every simple command of the command line
// (through wrappers), not just one of them.
func (r *Restriction) Permits(tool string, input json.RawMessage) (bool, string) {
	var rules []*Rule
	for _, rule := range r.rules {
		if rule.appliesTo(tool) {
			if rule.Pattern == "" {
				return true, ""
			}
			rules = append(rules, rule)
		}
	}
	if len(rules) == 0 {
		return false, tool + " is not in the allowed tools (" + r.list() + ")"
	}
	s := r.e.subject(tool, input)
	if s.bad != "" {
		return false, "cannot read the tool input: " + s.bad
	}
	if s.kind == kindShell {
		if s.shell.Err != nil || len(s.shell.Commands) == 0 {
			return false, "the command could not be analysed, so the allowed tools (" + r.list() + ") cannot cover it"
		}
		for _, c := range s.shell.Commands {
			ok := false
			for _, rule := range rules {
				if !c.Risky && rule.shell != nil && rule.matchShell(c.Core) {
					ok = true
					break
				}
			}
			if !ok {
				return false, fmt.Sprintf("%q is not covered by the allowed tools (%s)", c.Text, r.list())
			}
		}
		return true, ""
	}
	for _, rule := range rules {
		if r.e.matches(rule, s) {
			return true, ""
		}
	}
	return false, "this " + tool + " call is not covered by the allowed tools (" + r.list() + ")"
}

func (r *Restriction) list() string {
	out := make([]string, len(r.rules))
	for i, rule := range r.rules {
		out[i] = rule.Text
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// moreAliases are Claude Code tool names that permission rules do not take
// but tool lists written for Claude Code (skills' allowed-tools, agent
// roles' tools) do use.
var moreAliases = map[string]string{
	"LS": ToolList, "MultiEdit": ToolEdit, "TodoWrite": ToolTodo,
	"Task": ToolAgent, "Agent": ToolAgent, "Skill": ToolSkill,
}

// ParseToolList reads a tool list (a skill's allowed-tools, a role's
// tools): entries separated by commas or spaces, a space inside TOOL(…)
// staying in the pattern, or already split into items. It returns the
// entries as rules in hew's spelling; entries hew has no tool for are
// dropped with a warning, so the list never grows by a misreading.
func ParseToolList(items []string) (rules, warnings []string) {
	for _, item := range items {
		for _, part := range SplitRules(item) {
			name, rest := part, ""
			if i := strings.IndexByte(part, '('); i >= 0 {
				name, rest = part[:i], part[i:]
			}
			if a, ok := moreAliases[strings.TrimSpace(name)]; ok {
				part = a + rest
			}
			r, err := ParseRule(part, "")
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("tool entry %q ignored: %v", part, err))
				continue
			}
			canon := r.Tool
			if r.Pattern != "" {
				canon += "(" + r.Pattern + ")"
			}
			rules = append(rules, canon)
		}
	}
	return rules, warnings
}

// SplitRules splits a rule list at commas and whitespace outside
// parentheses, so "Bash(git diff:*),Edit" is two rules and
// "Bash(echo a, b)" one (flags, allowed-tools lists).
func SplitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if p := strings.TrimSpace(s[start:end]); p != "" {
			out = append(out, p)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}
