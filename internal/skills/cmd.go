package skills

import (
	"fmt"
	"io"
)

// Command runs `hew skills list`.
func Command(args []string, stdout, stderr io.Writer, r Roots) int {
	for i, a := range args {
		if a == "-h" || a == "--help" || (i == 0 && a == "help") {
			fmt.Fprintln(stdout, "usage: hew skills list\n\nLists discovered skills, where each came from, and whether /NAME runs it.")
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
	list := Discover(r)
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no skills found (looked in .hew/skills, .claude/skills, $HEW_HOME/skills, ~/.claude/skills)")
		return 0
	}
	for _, s := range list {
		inv := ""
		if s.UserInvocable {
			inv = "  /" + s.Name
		}
		fmt.Fprintf(stdout, "%s (%s)%s\n    %s\n    %s\n", s.Name, s.Source, inv, s.Description, s.Path)
		if s.Warning != "" {
			fmt.Fprintf(stdout, "    warning: %s\n", s.Warning)
		}
	}
	return 0
}
