package repl

import (
	"bytes"
	"strings"
	"testing"
	"time"

	sessionfile "github.com/hew-dev/hew/internal/session"
)

// The numbered list shows age, size, a one-line title and the id; only a
// listed number picks a session.
func TestPickSession(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	list := []sessionfile.Info{
		{ID: "01NEW", Path: "/s/01NEW.jsonl", Title: "fix the\n  flaky   test", Messages: 12, Modified: now.Add(-3 * time.Hour)},
		{ID: "01OLD", Path: "/s/01OLD.jsonl", Title: strings.Repeat("long ", 20), Messages: 3, Modified: now.Add(-50 * time.Hour)},
	}
	for _, tc := range []struct {
		in, path string
		ok       bool
	}{{"2\n", "/s/01OLD.jsonl", true}, {"1", "/s/01NEW.jsonl", true}, {"3\n", "", false}, {"0\n", "", false}, {"x\n", "", false}, {"", "", false}} {
		var out bytes.Buffer
		path, ok := PickSession(strings.NewReader(tc.in), &out, list, func() time.Time { return now })
		if path != tc.path || ok != tc.ok {
			t.Errorf("%q: %q %v, want %q %v", tc.in, path, ok, tc.path, tc.ok)
		}
		lines := strings.Split(out.String(), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], " 1) 3h ago") || !strings.Contains(lines[0], " 12 msgs  fix the flaky test  01NEW") ||
			!strings.HasPrefix(lines[1], " 2) 2d ago") || !strings.HasSuffix(lines[1], "  01OLD") || lines[2] != "resume which session? " {
			t.Errorf("%q: listed\n%s", tc.in, out.String())
		}
	}
}
