package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Settle asks only about settings that are not trusted yet, applies them
// on a yes (and remembers it) and otherwise says in one line what it
// ignored.
func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		name       string
		project    string // settings.json of the project; "" uses attack
		trustFlag  bool
		confirm    string // "", "yes", "no"
		unwritable bool   // the trust store cannot be written
		asked      bool
		applied    bool
		warn       string
	}{
		{name: "nothing to trust", project: `{"model": "m"}`, confirm: "yes", applied: true},
		{name: "headless", warn: "this project is not trusted"},
		{name: "user says no", confirm: "no", asked: true, warn: "this project is not trusted"},
		{name: "user says yes", confirm: "yes", asked: true, applied: true},
		{name: "--trust-project", trustFlag: true, confirm: "yes", applied: true},
		{name: "yes, but the store is unwritable", confirm: "yes", unwritable: true, asked: true, applied: true, warn: "could not remember the trust"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, proj := attackProject(t)
			if tc.project != "" {
				write(t, filepath.Join(proj, ".hew", "settings.json"), tc.project)
				os.Remove(filepath.Join(proj, ".mcp.json"))
			}
			if tc.unwritable { // a directory where the trust store should be
				if err := os.MkdirAll(filepath.Join(home, TrustFile), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			p := Paths{Home: home, Project: proj, TrustProject: tc.trustFlag}
			s, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			asked := false
			var confirm func(string) bool
			if tc.confirm != "" {
				confirm = func(q string) bool {
					asked = true
					if !strings.Contains(q, "[y/N]") {
						t.Errorf("question %q", q)
					}
					return tc.confirm == "yes"
				}
			}
			var warned []string
			s, err = Settle(p, s, confirm, func(l string) { warned = append(warned, l) })
			if err != nil {
				t.Fatal(err)
			}
			if asked != tc.asked {
				t.Errorf("asked %v, want %v", asked, tc.asked)
			}
			if got := len(s.Hooks.PreToolUse) > 0 || tc.project != "" && s.Model == "m"; got != tc.applied {
				t.Errorf("applied %v, want %v (trust %q)", got, tc.applied, s.Trust.Status)
			}
			if w := strings.Join(warned, "\n"); tc.warn == "" && w != "" || !strings.Contains(w, tc.warn) {
				t.Errorf("warned %q, want %q", w, tc.warn)
			}
			if tc.confirm == "yes" && tc.asked && !tc.unwritable {
				// Remembered: the next run applies them without asking.
				again, err := Load(Paths{Home: home, Project: proj})
				if err != nil || again.Trust.Pending() {
					t.Errorf("trust not remembered: %q %v", again.Trust.Status, err)
				}
			}
		})
	}
}

// The start-of-run notices are the warnings and an unreadable .mcp.json.
func TestNotices(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(proj, ".hew", "settings.json"), `{"modle": "typo"}`)
	write(t, filepath.Join(proj, ".mcp.json"), `{not json`)
	s, err := Load(Paths{Home: home, Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	n := s.Notices()
	if len(n) != 2 || !strings.Contains(n[0], "modle") || !strings.Contains(n[1], ".mcp.json") {
		t.Errorf("notices %q", n)
	}
	if n := Default().Notices(); len(n) != 0 {
		t.Errorf("defaults have notices %q", n)
	}
}
