package memory

import (
	"fmt"
	"strings"
	"time"
)

// ListLine is a memory's line in `hew memory list` and /memory.
func ListLine(m Memory) string {
	return fmt.Sprintf("%-9s %-36s %s  %s", m.Type, strings.TrimSuffix(m.File()[len(m.Type)+1:], ".md"), Day(m.Updated), m.Description)
}

// Day is a memory date as `hew memory` shows it ("?" when unknown).
func Day(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.Format("2006-01-02")
}
