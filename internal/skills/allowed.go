package skills

import (
	"github.com/hew-dev/hew/internal/frontmatter"
	"github.com/hew-dev/hew/internal/permission"
)

// parseAllowedTools reads allowed-tools, a YAML list or a string of
// entries, into permission rules in hew's spelling (see
// permission.ParseToolList). Unknown entries are dropped with a warning:
// the skill still loads, and a fork never gets a tool the author did not
// list.
func parseAllowedTools(f frontmatter.Field) (rules, warnings []string) {
	items := f.List
	if items == nil {
		items = []string{f.Text}
	}
	return permission.ParseToolList(items)
}
