// Package prompt assembles the system prompt in two parts: a static core that
// is byte-identical across sessions and machines (so the provider's prompt
// cache survives), then a dynamic environment block. Project instructions and
// the date go into a <system-reminder> in the first user message instead, so
// editing AGENTS.md never invalidates the cached prefix.
package prompt

import (
	"context"
	_ "embed"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/llm"
)

//go:embed core.md
var core string

// Core is the static core of the system prompt.
func Core() string { return core }

// Options is what the dynamic parts are built from. Everything arrives as a
// value; Build reads no process globals.
type Options struct {
	Root    string // project root (working directory hew started in)
	HomeDir string // the user's home, for ~/ includes and ~/.claude rules
	HewHome string // $HEW_HOME, for its AGENTS.md
	GOOS    string
	Shell   string
	Mode    string
	Model   string
	// Append is --append-system-prompt.
	Append string
	// MCPInstructions are the connected MCP servers' instructions, one
	// "## NAME" section per server.
	MCPInstructions string
	// SkillIndex lists available skills (one line each), if any.
	SkillIndex string
	Now        time.Time
	// Git runs git in Root; nil uses the git binary with a short timeout.
	Git func(args ...string) (string, error)
}

// Prompt is the assembled prompt.
type Prompt struct {
	// System is the static core (cached) then the dynamic environment.
	System []llm.SystemBlock
	// Reminder goes before the user's first message; "" when there is nothing to say.
	Reminder string
	// Sources lists the instruction files that were included.
	Sources []string
}

// Build assembles the prompt for a session.
func Build(o Options) Prompt {
	if o.Git == nil {
		o.Git = gitRunner(o.Root)
	}
	p := Prompt{System: []llm.SystemBlock{{Text: core, Cache: true}, {Text: environment(o)}}}
	inst := LoadInstructions(o.Root, o.HomeDir, o.HewHome)
	p.Sources = inst.Sources
	p.Reminder = reminder(inst.Text, o.Now)
	return p
}

// WithReminder prefixes a user prompt with the reminder.
func WithReminder(reminder, userPrompt string) string {
	if reminder == "" {
		return userPrompt
	}
	return reminder + "\n\n" + userPrompt
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
	if o.Mode != "" {
		fmt.Fprintf(&b, "Permission mode: %s\n", o.Mode)
	}
	if branch, err := o.Git("rev-parse", "--abbrev-ref", "HEAD"); err == nil {
		fmt.Fprintf(&b, "Git repository: yes, branch %s\n", strings.TrimSpace(branch))
		if st, err := o.Git("status", "--porcelain"); err == nil {
			b.WriteString(statusSummary(st))
		}
		if log, err := o.Git("log", "--oneline", "-5"); err == nil && strings.TrimSpace(log) != "" {
			b.WriteString("Recent commits:\n")
			for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
				b.WriteString("  " + l + "\n")
			}
		}
	} else {
		b.WriteString("Git repository: no\n")
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

func reminder(instructions string, now time.Time) string {
	var b strings.Builder
	b.WriteString("<system-reminder>\n")
	if instructions != "" {
		b.WriteString("Project instructions (follow them; they override defaults):\n\n")
		b.WriteString(instructions)
		if !strings.HasSuffix(instructions, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if !now.IsZero() {
		fmt.Fprintf(&b, "Today's date: %s\n", now.Format("2006-01-02"))
	}
	b.WriteString("</system-reminder>")
	if instructions == "" && now.IsZero() {
		return ""
	}
	return b.String()
}

func gitRunner(root string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root, "--no-optional-locks"}, args...)...)
		out, err := cmd.Output()
		return string(out), err
	}
}
