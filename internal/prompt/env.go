package prompt

import (
	"fmt"
	"strings"
)

// ToolLine names a deferred tool with the first line of its description.
type ToolLine struct {
	Name string
	Line string
}

// modeMeaning says what each permission mode does to the model's actions,
// in the words of SPEC section 4's table.
var modeMeaning = map[string]string{
	"default":           "reads and known-safe commands run; edits, writes, other commands, web_fetch and MCP tools ask first",
	"acceptEdits":       "edits and writes in the project run without asking, except protected files such as .hew/settings.json and .git/config; commands that are not known-safe, web_fetch and MCP tools ask",
	"plan":              "read-only: edits, writes and commands that change anything are denied; explore, then present the plan with exit_plan_mode",
	"auto":              "reads and known-safe commands run; whatever else would ask is decided by a classifier instead of a person, and its denial is final",
	"bypassPermissions": "every action runs without asking, except what deny rules forbid or ask rules ask about: take extra care with destructive actions",
	"dontAsk":           "what would ask is denied: edits, writes and commands that are not known-safe are refused",
}

// ModeMeaning is the one-line meaning of a permission mode ("" if unknown).
func ModeMeaning(mode string) string { return modeMeaning[mode] }

// ModeNote is the reminder sent with the next user message when the
// permission mode changed during the session, so the model learns it
// without the cached system prompt changing.
func ModeNote(mode string) string {
	line := "Permission mode is now " + mode
	if m := ModeMeaning(mode); m != "" {
		line += ": " + m
	}
	return "<system-reminder>\n" + line + ".\n</system-reminder>"
}

// GoalNote is what the model is told while a /goal or --goal runs.
func GoalNote(cond string) string {
	return "Keep working until this condition holds: " + cond + "\n" +
		"After each round an independent check reads the transcript and decides whether it holds; a claim is not enough, so show the evidence (the commands you ran and their output). If it cannot be met, say why plainly."
}

func environment(o Options) string {
	var b strings.Builder
	b.WriteString("# Environment\n")
	fmt.Fprintf(&b, "Working directory (project root): %s\n", o.Root)
	fmt.Fprintf(&b, "Platform: %s\n", o.GOOS)
	if o.Shell != "" {
		fmt.Fprintf(&b, "Shell: %s\n", o.Shell)
	}
	if o.Model != "" {
		fmt.Fprintf(&b, "Model: %s\n", o.Model)
	}
	if o.Interactive {
		b.WriteString("Session: interactive; the user answers approval questions at the terminal.\n")
	} else {
		b.WriteString("Session: headless; nobody answers questions or approvals (what would ask is denied at once): decide, state your assumptions, finish.\n")
	}
	if o.Mode != "" {
		fmt.Fprintf(&b, "Permission mode: %s", o.Mode)
		if m := ModeMeaning(o.Mode); m != "" {
			b.WriteString(" (" + m + ")")
		}
		b.WriteString("\n")
	}
	if o.Sandbox != "" {
		fmt.Fprintf(&b, "Sandbox: %s\n", o.Sandbox)
	}
	if o.Trust != "" {
		fmt.Fprintf(&b, "Project trust: %s\n", o.Trust)
	}
	b.WriteString(gitFacts(o.Git))
	if o.Memory != "" {
		fmt.Fprintf(&b, "Memory: %s\n", o.Memory)
	}
	if len(o.Deferred) > 0 {
		b.WriteString("\n# Deferred tools (load with tool_search select:NAME, then call)\n")
		for _, t := range o.Deferred {
			fmt.Fprintf(&b, "- %s: %s\n", t.Name, t.Line)
		}
	}
	if o.MCPInstructions != "" {
		b.WriteString("\n# MCP server instructions\n" + strings.TrimSpace(o.MCPInstructions) + "\n")
	}
	if o.SkillIndex != "" {
		b.WriteString("\n# Skills\n" + strings.TrimSpace(o.SkillIndex) + "\n")
	}
	if o.Append != "" {
		b.WriteString("\n" + strings.TrimSpace(o.Append) + "\n")
	}
	return b.String()
}

// gitFacts reports the repository, branch, status and recent commits. A
// repository made by `git init` with no commit yet is still a repository.
func gitFacts(git func(args ...string) (string, error)) string {
	inside, err := git("rev-parse", "--is-inside-work-tree")
	if err != nil || strings.TrimSpace(inside) != "true" {
		return "Git repository: no\n"
	}
	var b strings.Builder
	branch, berr := git("symbolic-ref", "--short", "-q", "HEAD")
	_, herr := git("rev-parse", "--verify", "-q", "HEAD")
	switch {
	case berr == nil && herr != nil:
		fmt.Fprintf(&b, "Git repository: yes, branch %s, no commits yet\n", strings.TrimSpace(branch))
	case berr == nil:
		fmt.Fprintf(&b, "Git repository: yes, branch %s\n", strings.TrimSpace(branch))
	default:
		head, _ := git("rev-parse", "--short", "HEAD")
		fmt.Fprintf(&b, "Git repository: yes, detached HEAD at %s\n", strings.TrimSpace(head))
	}
	if st, err := git("status", "--porcelain"); err == nil {
		b.WriteString(statusSummary(st))
	}
	if herr == nil {
		if log, err := git("log", "--oneline", "-5"); err == nil && strings.TrimSpace(log) != "" {
			b.WriteString("Recent commits:\n")
			for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
				b.WriteString("  " + l + "\n")
			}
		}
	}
	return b.String()
}

func statusSummary(porcelain string) string {
	lines := strings.Split(strings.TrimRight(porcelain, "\n"), "\n")
	if porcelain == "" || len(lines) == 0 || lines[0] == "" {
		return "Git status: clean\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Git status: %d changed path(s)\n", len(lines))
	for i, l := range lines {
		if i == 10 {
			fmt.Fprintf(&b, "  … and %d more\n", len(lines)-10)
			break
		}
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}
