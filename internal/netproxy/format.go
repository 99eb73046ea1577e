package netproxy

import (
	"fmt"
	"sort"
	"strings"
)

// Bytes renders a byte count for people (1.2 MB).
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Summarize folds receipts into one line per destination and decision
// ("registry.test:443 allow ×12 ↑3.1 kB ↓1.2 MB"), joined by "; ", for
// --verbose lines where hundreds of connections must stay readable.
func Summarize(rs []Receipt) string {
	type agg struct {
		n        int
		up, down int64
		by       string
	}
	m := map[string]*agg{}
	var keys []string
	for _, r := range rs {
		k := fmt.Sprintf("%s:%d %s", r.Host, r.Port, r.Decision)
		a := m[k]
		if a == nil {
			a = &agg{by: r.By}
			m[k] = a
			keys = append(keys, k)
		}
		a.n++
		a.up += r.Up
		a.down += r.Down
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		a := m[k]
		s := k + " by " + a.by
		if a.n > 1 {
			s += fmt.Sprintf(" ×%d", a.n)
		}
		if strings.HasSuffix(k, " allow") {
			s += " ↑" + Bytes(a.up) + " ↓" + Bytes(a.down)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
