package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
)

type fixture struct {
	root, home, hewHome string
}

func newFixture(t testing.TB, projectSettings string) fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{root: filepath.Join(base, "proj"), home: filepath.Join(base, "home")}
	f.hewHome = filepath.Join(f.home, ".hew")
	for _, d := range []string{filepath.Join(f.root, ".hew"), filepath.Join(f.root, ".git", "hooks"), filepath.Join(f.root, "demo"), f.hewHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if projectSettings != "" {
		if err := os.WriteFile(filepath.Join(f.root, ".hew", "settings.json"), []byte(projectSettings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f fixture) engine(t testing.TB, extra ...func(*Options)) *Engine {
	t.Helper()
	s, err := config.Load(config.Paths{Home: f.hewHome, Project: f.root, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Root: f.root, HomeDir: f.home, HewHome: f.hewHome, Settings: s}
	for _, fn := range extra {
		fn(&o)
	}
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func in(kv ...string) json.RawMessage {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

func shell(cmd string) json.RawMessage { return in("command", cmd) }

// The seed's checkpoint: a deny rule stops rm -rf without a prompt; the
// model's detour through rmdir is caught by the danger analysis and asks.
func TestCheckpointScenario(t *testing.T) {
	f := newFixture(t, `{"permissions": {"deny": ["run_shell(rm -rf*)"]}}`)
	e := f.engine(t)
	cases := []struct {
		cmd      string
		decision Decision
		source   string
		reason   string
	}{
		{"ls -la", Allow, "read-only", "known-safe"},
		{"rm -rf demo", Deny, "rule:deny run_shell(rm -rf*) (" + filepath.Join(".hew", "settings.json") + ")", "denied by rule run_shell(rm -rf*) in " + filepath.Join(".hew", "settings.json")},
		{"cd demo/.. && rm -rf demo", Deny, "rule:deny run_shell(rm -rf*)", "denied by rule"},
		{"sudo rm -rf demo", Deny, "rule:deny run_shell(rm -rf*)", "denied by rule"},
		{"rmdir demo && echo 删除成功", Ask, "danger:deletion", "rmdir removes demo"},
	}
	for _, c := range cases {
		v := e.Check(Request{Tool: "run_shell", Input: shell(c.cmd), Mode: ModeDefault})
		if v.Decision != c.decision || !strings.HasPrefix(v.Source, c.source) || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("%q: got %+v, want %s from %s (%q)", c.cmd, v, c.decision, c.source, c.reason)
		}
	}
	// The deny rule holds in bypassPermissions too.
	if v := e.Check(Request{Tool: "run_shell", Input: shell("rm -rf demo"), Mode: ModeBypass}); v.Decision != Deny {
		t.Errorf("bypass: deny rule did not hold: %+v", v)
	}
}

func sandboxed(o *Options) { o.SandboxActive = true }

func TestModesTable(t *testing.T) {
	f := newFixture(t, "")
	e := f.engine(t, sandboxed)
	read := in("file_path", "main.go")
	edit := in("file_path", "main.go", "old_string", "a", "new_string", "b")
	safe, readOnly, danger := shell("go build ./..."), shell("git status"), shell("git push --force")
	web, mcp := in("url", "https://example.com/x"), in("q", "x")
	type row struct {
		tool  string
		input json.RawMessage
		want  map[Mode]string // decision, "classify" for auto
	}
	rows := []row{
		{"read_file", read, map[Mode]string{ModeDefault: "allow", ModePlan: "allow", ModeAcceptEdits: "allow", ModeBypass: "allow", ModeDontAsk: "allow", ModeAuto: "allow"}},
		{"edit_file", edit, map[Mode]string{ModeDefault: "ask", ModePlan: "deny", ModeAcceptEdits: "allow", ModeBypass: "allow", ModeDontAsk: "deny", ModeAuto: "classify"}},
		{"write_file", in("file_path", "new.go", "content", "x"), map[Mode]string{ModeDefault: "ask", ModePlan: "deny", ModeAcceptEdits: "allow", ModeBypass: "allow", ModeDontAsk: "deny", ModeAuto: "classify"}},
		{"run_shell", safe, map[Mode]string{ModeDefault: "allow", ModePlan: "deny", ModeAcceptEdits: "allow", ModeBypass: "allow", ModeDontAsk: "allow", ModeAuto: "allow"}},
		{"run_shell", readOnly, map[Mode]string{ModeDefault: "allow", ModePlan: "allow", ModeAcceptEdits: "allow", ModeBypass: "allow", ModeDontAsk: "allow", ModeAuto: "allow"}},
		{"run_shell", shell("mkdir -p out && git add -A && git commit -m wip"), map[Mode]string{ModeDefault: "allow", ModePlan: "deny", ModeAcceptEdits: "allow", ModeBypass: "allow", ModeDontAsk: "allow", ModeAuto: "allow"}},
		{"run_shell", shell("rclone sync . remote:x"), map[Mode]string{ModeDefault: "ask", ModePlan: "deny", ModeAcceptEdits: "ask", ModeBypass: "allow", ModeDontAsk: "deny", ModeAuto: "classify"}},
		{"run_shell", shell("terraform apply -auto-approve"), map[Mode]string{ModeDefault: "ask", ModePlan: "deny", ModeAcceptEdits: "ask", ModeBypass: "allow", ModeDontAsk: "deny", ModeAuto: "classify"}},
		{"run_shell", shell("frobctl --go"), map[Mode]string{ModeDefault: "ask", ModePlan: "deny", ModeAcceptEdits: "ask", ModeBypass: "allow", ModeDontAsk: "deny", ModeAuto: "classify"}},
		{"run_shell", danger, map[Mode]string{ModeDefault: "ask", ModePlan: "deny", ModeAcceptEdits: "ask", ModeBypass: "allow", ModeDontAsk: "deny", ModeAuto: "classify"}},
		{"web_fetch", web, map[Mode]string{ModeDefault: "ask", ModePlan: "ask", ModeAcceptEdits: "ask", ModeBypass: "allow", ModeDontAsk: "deny", ModeAuto: "classify"}},
		{"mcp__files__read", mcp, map[Mode]string{ModeDefault: "ask", ModePlan: "ask", ModeAcceptEdits: "ask", ModeBypass: "allow", ModeDontAsk: "deny", ModeAuto: "classify"}},
		{"todo_write", in(), map[Mode]string{ModeDefault: "allow", ModePlan: "allow", ModeAcceptEdits: "allow", ModeBypass: "allow", ModeDontAsk: "allow", ModeAuto: "allow"}},
	}
	for _, r := range rows {
		for mode, want := range r.want {
			v := e.Check(Request{Tool: r.tool, Input: r.input, Mode: mode})
			got := string(v.Decision)
			if v.Classify {
				got = "classify"
			}
			if got != want {
				t.Errorf("%s %s in %s: got %s (%s: %s), want %s", r.tool, r.input, mode, got, v.Source, v.Reason, want)
			}
			if v.Reason == "" || v.Source == "" {
				t.Errorf("%s in %s: empty reason or source: %+v", r.tool, mode, v)
			}
		}
	}
}

func TestProtectedPathsAskEvenInAcceptEdits(t *testing.T) {
	f := newFixture(t, "")
	e := f.engine(t, func(o *Options) { o.AllowedTools = []string{"Edit", "Write", "Bash"} })
	cases := []struct {
		tool  string
		input json.RawMessage
	}{
		{"write_file", in("file_path", ".hew/settings.json", "content", "{}")},
		{"edit_file", in("file_path", ".hew/settings.local.json", "old_string", "a", "new_string", "b")},
		{"write_file", in("file_path", filepath.Join(f.hewHome, "settings.json"), "content", "{}")},
		{"write_file", in("file_path", ".git/config", "content", "x")},
		{"write_file", in("file_path", ".git/hooks/pre-commit", "content", "x")},
		{"write_file", in("file_path", "~/.bashrc", "content", "x")},
		{"run_shell", shell(`echo '{"permissions":{"allow":["run_shell"]}}' > .hew/settings.json`)},
		{"run_shell", shell("echo 'curl x | sh' >> ~/.zshrc")},
		{"run_shell", shell("cp hook .git/hooks/post-commit")},
		{"run_shell", shell("git config core.hooksPath /tmp/x")},
	}
	for _, c := range cases {
		for _, mode := range []Mode{ModeDefault, ModeAcceptEdits} {
			v := e.Check(Request{Tool: c.tool, Input: c.input, Mode: mode})
			if v.Decision != Ask || v.Source != "protected-path" {
				t.Errorf("%s %s in %s: got %+v, want ask from protected-path", c.tool, c.input, mode, v)
			}
		}
		if v := e.Check(Request{Tool: c.tool, Input: c.input, Mode: ModeDontAsk}); v.Decision != Deny {
			t.Errorf("%s %s in dontAsk: got %+v, want deny", c.tool, c.input, v)
		}
	}
	if v := e.Check(Request{Tool: "write_file", Input: in("file_path", "src/a.go", "content", "x"), Mode: ModeAcceptEdits}); v.Decision != Allow {
		t.Errorf("ordinary edit in acceptEdits: %+v", v)
	}
}

func TestOutsideDeletionAlwaysAsks(t *testing.T) {
	f := newFixture(t, `{"permissions": {"allow": ["run_shell(rm -rf:*)"]}}`)
	e := f.engine(t)
	for _, cmd := range []string{"rm -rf ~/x", "rm -rf ../..", "rm -rf $HOME", "rm -rf ../*", "rm -rf build ../other"} {
		for _, mode := range []Mode{ModeDefault, ModeAcceptEdits} {
			v := e.Check(Request{Tool: "run_shell", Input: shell(cmd), Mode: mode})
			if v.Decision != Ask || v.Source != "danger:delete-outside-project" || !strings.Contains(v.Reason, "deletes outside the project: /") && !strings.Contains(v.Reason, "unresolved") {
				t.Errorf("%q in %s: got %+v", cmd, mode, v)
			}
		}
	}
	v := e.Check(Request{Tool: "run_shell", Input: shell("rm -rf ~/x"), Mode: ModeDefault})
	if !strings.Contains(v.Reason, filepath.Join(f.home, "x")) {
		t.Errorf("reason does not show the resolved path: %q", v.Reason)
	}
	// Inside the project the allow rule applies.
	if v := e.Check(Request{Tool: "run_shell", Input: shell("rm -rf build"), Mode: ModeDefault}); v.Decision != Allow || !strings.HasPrefix(v.Source, "rule:allow") {
		t.Errorf("rm -rf build: %+v", v)
	}
}

func TestCompoundCommandsMatchRulesSeparately(t *testing.T) {
	f := newFixture(t, `{"permissions": {"allow": ["Bash(git log:*)", "run_shell(npm test*)", "run_shell(git push --force origin feature)", "Bash(git commit -m \"wip\")", "Bash(git reset --hard 'HEAD~1':*)"], "ask": ["run_shell(git push:*)"]}}`)
	e := f.engine(t)
	cases := []struct {
		cmd  string
		mode Mode
		want Decision
	}{
		{"git log | head", ModePlan, Allow},
		{"git log --oneline 2>&1 | head -5", ModeDontAsk, Allow},
		{"git log; rm -rf x", ModeDefault, Ask},
		{"git log && rm -rf x", ModeDontAsk, Deny},
		{"FOO=1 npm test -- --watch=false 2>&1", ModeDontAsk, Allow},
		{"timeout 600 npm test", ModeDontAsk, Allow},
		{"npm test > ~/.bashrc", ModeAcceptEdits, Ask},
		{"git push origin main", ModeBypass, Ask},
		{"git push --force origin feature", ModeDefault, Ask},
		{"git reset --hard HEAD~1", ModeDefault, Allow},
		{"git reset --hard HEAD~2", ModeDefault, Ask},
	}
	for _, c := range cases {
		v := e.Check(Request{Tool: "run_shell", Input: shell(c.cmd), Mode: c.mode})
		if v.Decision != c.want {
			t.Errorf("%q in %s: got %+v, want %s", c.cmd, c.mode, v, c.want)
		}
	}
	// A quoted pattern matches however the command is quoted.
	for _, cmd := range []string{"git commit -m wip", `git commit -m "wip"`} {
		if v := e.Check(Request{Tool: "run_shell", Input: shell(cmd), Mode: ModeDefault}); !strings.HasPrefix(v.Source, `rule:allow Bash(git commit -m "wip")`) {
			t.Errorf("%q: %+v", cmd, v)
		}
	}
	// Without the ask rule the exact allow rule covers the force push.
	f2 := newFixture(t, `{"permissions": {"allow": ["run_shell(git push --force origin feature)", "run_shell(timeout:*)"]}}`)
	e2 := f2.engine(t)
	if v := e2.Check(Request{Tool: "run_shell", Input: shell("git push --force origin feature"), Mode: ModeDefault}); v.Decision != Allow {
		t.Errorf("exact allow: %+v", v)
	}
	if v := e2.Check(Request{Tool: "run_shell", Input: shell("timeout 1 git push --force"), Mode: ModeDefault}); v.Decision != Ask {
		t.Errorf("a wrapper rule must not allow what it wraps: %+v", v)
	}
}

func TestFlagRulesAndHandBuiltSettings(t *testing.T) {
	f := newFixture(t, "")
	s := config.Default()
	s.Permissions.Allow = []string{"WebFetch(domain:example.com)"}
	e, err := New(Options{Root: f.root, HomeDir: f.home, Settings: s,
		AllowedTools: []string{"Bash(git push --force:*)"}, DisallowedTools: []string{"web_fetch(domain:evil.com)", "agent"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool   string
		input  json.RawMessage
		want   Decision
		source string
	}{
		{"run_shell", shell("git push --force origin x"), Allow, "rule:allow Bash(git push --force:*) (--allowed-tools)"},
		{"web_fetch", in("url", "https://evil.com/x"), Deny, "rule:deny web_fetch(domain:evil.com) (--disallowed-tools)"},
		{"web_fetch", in("url", "https://example.com/x"), Allow, "rule:allow WebFetch(domain:example.com) (settings)"},
		{"agent", in("prompt", "x"), Deny, "rule:deny agent (--disallowed-tools)"},
	}
	for _, c := range cases {
		if v := e.Check(Request{Tool: c.tool, Input: c.input, Mode: ModeDefault}); v.Decision != c.want || v.Source != c.source {
			t.Errorf("%s %s: got %+v, want %s from %s", c.tool, c.input, v, c.want, c.source)
		}
	}
	if e.DefaultMode() != ModeDefault {
		t.Errorf("default mode %q", e.DefaultMode())
	}
	if v := e.Check(Request{Tool: "read_file", Input: in("file_path", "x"), Mode: "yolo"}); v.Decision != Deny {
		t.Errorf("unknown mode: %+v", v)
	}
}

// A cut tool result tells the model to read the saved copy: that read must
// not ask (headless would deny it), while writes there and deny rules hold.
func TestReadableDirs(t *testing.T) {
	f := newFixture(t, "")
	state := filepath.Join(t.TempDir(), "tool-results")
	s := config.Default()
	s.Permissions.Deny = []string{"Read(" + filepath.Join(state, "secret.txt") + ")"}
	e, err := New(Options{Root: f.root, HomeDir: f.home, Settings: s, ReadableDirs: []string{state}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, path string
		want       Decision
	}{
		{"read_file", filepath.Join(state, "toolu_1.txt"), Allow},
		{"grep_search", state, Allow},
		{"write_file", filepath.Join(state, "toolu_1.txt"), Ask},
		{"read_file", filepath.Join(state, "secret.txt"), Deny},
		{"read_file", filepath.Join(filepath.Dir(state), "other.txt"), Ask},
	}
	for _, c := range cases {
		key := "file_path"
		if c.tool == "grep_search" {
			key = "path"
		}
		input := in(key, c.path)
		if c.tool == "write_file" {
			input = json.RawMessage(`{"file_path":"` + c.path + `","content":"x"}`)
		}
		if v := e.Check(Request{Tool: c.tool, Input: input, Mode: ModeDefault}); v.Decision != c.want {
			t.Errorf("%s %s: got %+v, want %s", c.tool, c.path, v, c.want)
		}
	}
}

// exit_plan_mode asks the user itself (its four choices), so the engine
// lets it run in plan mode rather than asking a yes/no first.
func TestExitPlanModeLeftToTheTool(t *testing.T) {
	f := newFixture(t, "")
	e, err := New(Options{Root: f.root, HomeDir: f.home})
	if err != nil {
		t.Fatal(err)
	}
	plan := in("plan", "# do it")
	if v := e.Check(Request{Tool: "exit_plan_mode", Input: plan, Mode: ModePlan}); v.Decision != Allow {
		t.Errorf("plan mode: %+v", v)
	}
	if v := e.Check(Request{Tool: "exit_plan_mode", Input: plan, Mode: ModeBypass}); v.Decision != Allow {
		t.Errorf("bypass: %+v", v)
	}
	if v := e.Check(Request{Tool: "enter_plan_mode", Input: json.RawMessage(`{}`), Mode: ModeDefault}); v.Decision != Allow {
		t.Errorf("enter: %+v", v)
	}
}

// SPEC section 4: plan mode's denials come before allow rules (and before
// the floors); a session grant does not carry into plan mode.
func TestPlanDenialsBeatAllowRules(t *testing.T) {
	f := newFixture(t, `{"permissions":{"allow":["Bash(make:*)","Edit(docs/**)","Bash(git log:*)"]}}`)
	e := f.engine(t)
	cases := []struct {
		tool  string
		input json.RawMessage
		want  Decision
	}{
		{"run_shell", shell("make build"), Deny},
		{"run_shell", shell("npm install"), Deny},
		{"run_shell", shell("git log --oneline"), Allow},
		{"run_shell", shell("rm -rf ~/x"), Deny},
		{"write_file", in("file_path", ".hew/settings.json", "content", "{}"), Deny},
		{"edit_file", in("file_path", "docs/a.md", "old_string", "a", "new_string", "b"), Deny},
		{"edit_file", in("file_path", "src/a.go", "old_string", "a", "new_string", "b"), Deny},
		{"run_shell", shell("git status"), Allow},
	}
	for _, c := range cases {
		if v := e.Check(Request{Tool: c.tool, Input: c.input, Mode: ModePlan}); v.Decision != c.want {
			t.Errorf("%s %s in plan mode: %+v, want %s", c.tool, c.input, v, c.want)
		}
	}
	w := in("file_path", "src/a.go", "content", "x")
	e.Grant("write_file", w)
	if v := e.Check(Request{Tool: "write_file", Input: w, Mode: ModeDefault}); v.Decision != Allow || v.Source != "session-grant" {
		t.Errorf("granted write in default mode: %+v", v)
	}
	if v := e.Check(Request{Tool: "write_file", Input: w, Mode: ModePlan}); v.Decision != Deny {
		t.Errorf("granted write in plan mode: %+v", v)
	}
}

func TestDeniesRead(t *testing.T) {
	f := newFixture(t, `{"permissions":{"deny":["Read(secrets/**)","Grep(private/*)"]}}`)
	e := f.engine(t)
	cases := []struct {
		tool, rel string
		want      bool
	}{
		{"grep_search", "secrets/k.env", true},
		{"list_files", "secrets/a/b.txt", true},
		{"grep_search", "pub.txt", false},
		{"grep_search", "private/x", true},
		{"list_files", "private/x", false},
	}
	for _, c := range cases {
		if got := e.DeniesRead(c.tool, filepath.Join(f.root, c.rel)); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.tool, c.rel, got, c.want)
		}
	}
}

// "Yes for this session" says exactly what it covers, as Grant scopes it.
func TestGrantScopeSaysWhatItCovers(t *testing.T) {
	f := newFixture(t, "")
	e, err := New(Options{Root: f.root, HomeDir: f.home})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, input, want string
	}{
		{"run_shell", `{"command":"terraform plan"}`, "this exact command"},
		{"edit_file", `{"file_path":"src/x.go","old_string":"a","new_string":"b"}`, "changes to src/x.go"},
		{"web_fetch", `{"url":"https://example.com/a"}`, "every fetch from example.com"},
		{"mcp__fs__read", `{}`, "every mcp__fs__read call"},
	} {
		if got := e.GrantScope(c.tool, json.RawMessage(c.input)); got != c.want {
			t.Errorf("%s: %q, want %q", c.tool, got, c.want)
		}
	}
}
