package app

import (
	"strings"

	"github.com/hew-dev/hew/internal/prompt"
	"github.com/hew-dev/hew/internal/tools"
)

// sandboxLine says in one line how run_shell is confined, for the
// environment block: what commands may write and whether they reach the
// network. warning is sandbox.Configure's ("" when fully confined).
func sandboxLine(confined, network bool, warning string) string {
	if !confined {
		return "off (" + warning + ")"
	}
	writes := "on: commands may write only in the project, the temp directory, additional directories and tool caches"
	switch {
	case network:
		return writes + "; network allowed"
	case warning != "":
		return writes + "; network not blocked (this kernel's Landlock cannot)"
	}
	return writes + "; network off (connections fail)"
}

// deferredLines lists the registry's deferred tools with the first line of
// each description, for the environment block.
func deferredLines(r *tools.Registry) []prompt.ToolLine {
	var out []prompt.ToolLine
	for _, t := range r.Deferred() {
		line, _, _ := strings.Cut(strings.TrimSpace(t.Description()), "\n")
		if len(line) > 160 {
			line = line[:157] + "..."
		}
		out = append(out, prompt.ToolLine{Name: t.Name(), Line: line})
	}
	return out
}
