// Package skills is `hew skills list`: the discovered skills, where each
// came from and what could not be loaded (internal/skills does the finding).
package skills

import (
	"fmt"
	"io"
	"strings"

	"github.com/hew-dev/hew/internal/skills"
)

// Options is what the command needs: where it writes and where to look.
type Options struct {
	Stdout, Stderr io.Writer
	Roots          skills.Roots
}

// Run runs `hew skills ARGS` and returns the exit code.
func Run(o Options, args []string) int {
	stdout, stderr, r := o.Stdout, o.Stderr, o.Roots
	for i, a := range args {
		if a == "-h" || a == "--help" || (i == 0 && a == "help") {
			fmt.Fprintln(stdout, "usage: hew skills list\n\nLists discovered skills: name, where it came from, whether it runs inline or in a\nsub-agent (fork), /NAME when the user can run it, and the skills it shadows.\nSkills that could not be loaded are listed with the reason.")
			return 0
		}
	}
	if len(args) == 0 {
		args = []string{"list"}
	}
	if len(args) != 1 || args[0] != "list" {
		fmt.Fprintln(stderr, "usage: hew skills list")
		return 2
	}
	c := skills.Scan(r)
	if len(c.Skills) == 0 && len(c.Problems) == 0 {
		fmt.Fprintln(stdout, "no skills found (looked in .hew/skills, .claude/skills, $HEW_HOME/skills, ~/.claude/skills)")
		return 0
	}
	for _, s := range c.Skills {
		fmt.Fprint(stdout, describe(s))
	}
	for _, p := range c.Problems {
		fmt.Fprintf(stdout, "not loaded: %s\n    %s\n", p.Path, p.Reason)
	}
	return 0
}

// describe renders one skill for `hew skills list`: a heading
// line (name, source, context, /NAME), the description, the path, and the
// files it shadows.
func describe(s skills.Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s)", s.Name, s.Source, s.Context)
	if s.UserInvocable {
		fmt.Fprintf(&b, "  /%s", s.Name)
		if s.ArgumentHint != "" {
			b.WriteString(" " + s.ArgumentHint)
		}
	}
	fmt.Fprintf(&b, "\n    %s\n    %s\n", s.Description, s.Path)
	if s.Fork() && s.AllowedTools != nil {
		fmt.Fprintf(&b, "    tools: %s\n", strings.Join(s.AllowedTools, ", "))
	}
	for _, sh := range s.Shadows {
		fmt.Fprintf(&b, "    shadows %s\n", sh)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "    warning: %s\n", w)
	}
	return b.String()
}
