package memory

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ListLine is a memory's line in `hew memory list` and /memory.
func ListLine(m Memory) string {
	return fmt.Sprintf("%-9s %-36s %s  %s", m.Type, strings.TrimSuffix(m.File()[len(m.Type)+1:], ".md"), Day(m.Updated), m.Description)
}

// ReportPruned says which memories the index left out, so pruning is never
// silent.
func ReportPruned(w io.Writer, pruned []string) {
	if len(pruned) == 0 {
		return
	}
	fmt.Fprintf(w, "hew: the memory index is full (%d lines / %d KB): %d lower-value memories are no longer indexed or recalled (their files stay):\n", MaxIndexLines, MaxIndexBytes/1024, len(pruned))
	for i, l := range pruned {
		if i == 5 {
			fmt.Fprintf(w, "  … and %d more\n", len(pruned)-5)
			break
		}
		fmt.Fprintln(w, "  "+l)
	}
}

// Day is a memory date as `hew memory` shows it ("?" when unknown).
func Day(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.Format("2006-01-02")
}
