package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/scenario"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// approvalSession is an agent over the real engine whose approvals can be
// saved to the project's .hew/settings.local.json.
func approvalSession(t *testing.T, sc string, ap *approver) (*Agent, string, *events) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := t.TempDir()
	local := filepath.Join(root, ".hew", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, []byte(`{"model":"kept","permissions":{"deny":["Bash(shred:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	settings, err := config.Load(config.Paths{Home: home, Project: root})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := permission.New(permission.Options{Root: root, HomeDir: home, HewHome: home, Settings: settings, LocalSettings: local})
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse([]byte(sc))
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	ev := &events{}
	a, err := New(Config{Provider: mock.New(s), Model: "mock", Tools: reg, Permissions: eng, Mode: permission.ModeDefault,
		Approver: ap, Emit: ev.emit, SessionID: "approvals",
		Env: &tools.Env{Root: root, HomeDir: home, StateDir: filepath.Join(home, "state"), AllowOutside: eng.AllowsOutside}})
	if err != nil {
		t.Fatal(err)
	}
	return a, local, ev
}

func toolResults(a *Agent) []llm.Block {
	var out []llm.Block
	for _, m := range a.History() {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				out = append(out, b)
			}
		}
	}
	return out
}

// "Yes, and don't ask again" shows the scoped rule, saves it to
// .hew/settings.local.json (keeping what the file held) and the same kind
// of command does not ask again; a different one still does.
func TestApproveAlwaysSavesTheScopedRule(t *testing.T) {
	sc := `{"turns":[
	 {"text":"a","tool_calls":[{"name":"run_shell","input":{"command":"hostid"}}]},
	 {"text":"b","tool_calls":[{"name":"run_shell","input":{"command":"hostid --help"}}]},
	 {"text":"c","tool_calls":[{"name":"run_shell","input":{"command":"frobctl --x"}}]},
	 {"text":"done"}]}`
	ap := &approver{fn: func(r ApprovalRequest) (Approval, string) {
		if strings.HasPrefix(r.Subject, "hostid") {
			return ApproveAlways, ""
		}
		return ApproveDeny, ""
	}}
	a, local, ev := approvalSession(t, sc, ap)
	a.Run(context.Background(), "go")
	if len(ap.asked) != 2 || ap.asked[0].Suggest != "run_shell(hostid:*)" || ap.asked[1].Subject != "frobctl --x" {
		t.Fatalf("asked %d times: %+v", len(ap.asked), ap.asked)
	}
	data, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"run_shell(hostid:*)"`) || !strings.Contains(string(data), `"kept"`) || !strings.Contains(string(data), "shred") {
		t.Errorf("settings.local.json after saving:\n%s", data)
	}
	res := toolResults(a)
	if len(res) != 3 || res[1].IsError && strings.HasPrefix(res[1].Content, "Action denied") || !strings.HasPrefix(res[2].Content, "Action denied") {
		t.Fatalf("results: %+v", res)
	}
	saved := false
	ev.mu.Lock()
	all := append([]Event(nil), ev.all...)
	ev.mu.Unlock()
	for _, e := range all {
		if n, ok := e.(Notice); ok && strings.Contains(n.Text, "saved run_shell(hostid:*)") {
			saved = true
		}
	}
	if !saved {
		t.Error("no notice that the rule was saved")
	}
}

// "No, with a message" denies and hands the user's words to the model.
func TestDenyWithMessageReachesTheModel(t *testing.T) {
	sc := `{"turns":[{"text":"a","tool_calls":[{"name":"run_shell","input":{"command":"frobctl --x"}}]},{"text":"done"}]}`
	ap := &approver{fn: func(ApprovalRequest) (Approval, string) { return ApproveDeny, "use make deploy-staging instead" }}
	a, _, _ := approvalSession(t, sc, ap)
	a.Run(context.Background(), "go")
	res := toolResults(a)
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Content, "use make deploy-staging instead") {
		t.Fatalf("results: %+v", res)
	}
}
