package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
)

// A project session's engine lets the model read hew's state for the
// project but not write it, and "don't ask again" lands in the project's
// settings.local.json with a trusted project staying trusted.
func TestForProject(t *testing.T) {
	f := newFixture(t, `{"hooks": {"PreToolUse": [{"matcher": "*", "command": "true"}]}}`)
	paths := config.Paths{Home: f.hewHome, Project: f.root, UserHome: f.home, TrustProject: true}
	s, err := config.Load(paths)
	if err != nil {
		t.Fatal(err)
	}
	if err := config.RecordTrust(f.hewHome, s.Trust); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(f.hewHome, "projects", "p")
	e, err := New(ForProject(f.root, f.home, f.hewHome, state, s))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool, path string
		want       Decision
	}{
		{ToolRead, filepath.Join(state, "tool-results", "r1.txt"), Allow},
		{ToolRead, filepath.Join(state, "memory", "MEMORY.md"), Allow},
		{ToolWrite, filepath.Join(state, "memory", "MEMORY.md"), Ask},
		{ToolRead, filepath.Join(state, "other", "x"), Ask},
	} {
		if v := e.Check(Request{Tool: tc.tool, Input: in("file_path", tc.path), Mode: ModeDefault}); v.Decision != tc.want {
			t.Errorf("%s %s: %s (%s), want %s", tc.tool, tc.path, v.Decision, v.Reason, tc.want)
		}
	}
	file, err := e.Remember("run_shell(make lint)")
	if err != nil || file != filepath.Join(f.root, ".hew", "settings.local.json") {
		t.Fatalf("Remember: %q %v", file, err)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "run_shell(make lint)") {
		t.Errorf("saved %s", b)
	}
	paths.TrustProject = false
	if again, err := config.Load(paths); err != nil || again.Trust.Pending() {
		t.Errorf("the project's own rule made it untrusted: %q %v", again.Trust.Status, err)
	}
}
