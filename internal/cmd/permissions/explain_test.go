package permissions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/permission"
)

// engineWith is the engine of a session in a project with these settings.
func engineWith(t *testing.T, projectSettings string) *permission.Engine {
	t.Helper()
	root, home := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".hew"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".hew", "settings.json"), []byte(projectSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := config.Load(config.Paths{Home: filepath.Join(home, ".hew"), Project: root, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := permission.New(permission.Options{Root: root, HomeDir: home, HewHome: filepath.Join(home, ".hew"), Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestExplain(t *testing.T) {
	e := engineWith(t, `{"permissions": {"deny": ["run_shell(rm -rf*)"]}}`)
	cases := []struct {
		tool, input string
		mode        permission.Mode
		want        map[string]string
	}{
		{"run_shell", `{"command":"rm -rf demo"}`, "", map[string]string{"decision": "deny", "source": "rule:deny run_shell(rm -rf*) (" + filepath.Join(".hew", "settings.json") + ")"}},
		{"run_shell", `{"command":"rmdir demo"}`, permission.ModeDefault, map[string]string{"decision": "ask", "source": "danger:deletion"}},
		{"edit_file", `{"file_path":"a.go","old_string":"a","new_string":"b"}`, permission.ModeAuto, map[string]string{"decision": "ask", "source": "mode:auto"}},
		{"read_file", `{"file_path":"a.go"}`, permission.ModePlan, map[string]string{"decision": "allow", "source": "default"}},
	}
	for _, c := range cases {
		out, err := explain(e, c.tool, json.RawMessage(c.input), c.mode)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "\n") {
			t.Errorf("not one line: %s", out)
		}
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil || len(got) != 3 {
			t.Fatalf("bad JSON %s: %v", out, err)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s %s: %s = %q, want %q", c.tool, c.input, k, got[k], v)
			}
		}
		if c.mode == permission.ModeAuto && !strings.Contains(got["reason"], "classifier") {
			t.Errorf("auto reason does not mention the classifier: %q", got["reason"])
		}
	}
	if out, _ := explain(e, "Bash", json.RawMessage(`{"command":"rm -rf demo"}`), ""); !strings.Contains(string(out), `"decision":"deny"`) {
		t.Errorf("Claude Code alias not understood: %s", out)
	}
	if _, err := explain(e, "run_shell", json.RawMessage(`{nope`), ""); err == nil {
		t.Error("invalid JSON accepted")
	}
	if _, err := explain(e, "run_shell", json.RawMessage(`{}`), "yolo"); err == nil {
		t.Error("invalid mode accepted")
	}
}
