package skills

import (
	"fmt"
	"strings"
)

// Describe renders one skill for `hew skills list` and /skills: a heading
// line (name, source, context, /NAME), the description, the path, and the
// files it shadows.
func Describe(s Skill) string {
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
