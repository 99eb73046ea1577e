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
	// Replace, when set, is used instead of the static core
	// (--system-prompt); the environment block still follows.
	Replace string
	// MCPInstructions are the connected MCP servers' instructions, one
	// "## NAME" section per server.
	MCPInstructions string
	// SkillIndex lists available skills (one line each), if any.
	SkillIndex string
	// Interactive is true when someone at a terminal answers approval
	// questions; false for headless runs (-p, hew mcp serve), where
	// whatever would ask is denied.
	Interactive bool
	// Sandbox says in one line how run_shell is confined (writes, network);
	// "" leaves the line out.
	Sandbox string
	// Trust says in one line whether the project is trusted and what that
	// changes; filled by the wiring from internal/config, "" leaves it out.
	Trust string
	// Deferred are the tools loaded on demand through tool_search, listed
	// by name with one line each so the model can find them.
	Deferred []ToolLine
	// Memory says in one line what long-term memory holds; "" leaves it out.
	Memory string
	Now    time.Time
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
	c := core
	if strings.TrimSpace(o.Replace) != "" {
		c = o.Replace
	}
	p := Prompt{System: []llm.SystemBlock{{Text: c, Cache: true}, {Text: environment(o)}}}
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
