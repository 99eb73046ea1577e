package skills

import (
	"fmt"
	"strings"
)

// Index limits: the prompt lists at most MaxIndexEntries skills and cuts
// each description; the rest are found through tool_search.
const (
	MaxIndexEntries = 40
	maxIndexDesc    = 160
)

// Index is the block of the dynamic system prompt: one "- name: description"
// line per skill the model may invoke, sorted by name so the bytes are the
// same on every run. Past MaxIndexEntries a last line says how many more
// there are and how to find them.
func Index(list []Skill) string {
	var b strings.Builder
	shown, hidden := 0, 0
	for _, s := range list {
		if !s.ModelInvocable {
			continue
		}
		if shown == MaxIndexEntries {
			hidden++
			continue
		}
		shown++
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, cut(s.Description, maxIndexDesc))
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "- … and %d more skills, not listed here: find them with tool_search (words from the task), then load one with the skill tool.\n", hidden)
	}
	return b.String()
}

// Line is how tool_search lists a skill: its description, cut to the
// index's length, and how to load it.
func Line(s Skill) string {
	return cut(s.Description, maxIndexDesc) + fmt.Sprintf(` (load it: skill {"name": %q})`, s.Name)
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
