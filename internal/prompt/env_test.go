package prompt

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/testenv"
)

// The environment block says whether anyone can answer approvals.
func TestEnvironmentInteractiveOrHeadless(t *testing.T) {
	inter := Build(Options{Root: "/p", Interactive: true, Git: noGit}).System[1].Text
	head := Build(Options{Root: "/p", Git: noGit}).System[1].Text
	if !strings.Contains(inter, "Session: interactive") || strings.Contains(inter, "headless") {
		t.Errorf("interactive block:\n%s", inter)
	}
	if !strings.Contains(head, "Session: headless; nobody answers") || !strings.Contains(head, "denied at once") {
		t.Errorf("headless block:\n%s", head)
	}
}

// Sandbox, trust and deferred tools appear when given, and only then.
func TestEnvironmentSandboxTrustDeferred(t *testing.T) {
	env := Build(Options{Root: "/p", Git: noGit, Sandbox: "on: writes only in the project; network off",
		Trust:    "not trusted: project hooks are ignored",
		Deferred: []ToolLine{{"enter_plan_mode", "Switch to plan mode."}, {"mcp__db__query", "Run a query."}}}).System[1].Text
	for _, want := range []string{"Sandbox: on: writes only in the project; network off", "Project trust: not trusted",
		"# Deferred tools (load with tool_search select:NAME, then call)", "- enter_plan_mode: Switch to plan mode.", "- mcp__db__query: Run a query."} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %q:\n%s", want, env)
		}
	}
	bare := Build(Options{Root: "/p", Git: noGit}).System[1].Text
	for _, not := range []string{"Sandbox:", "Project trust:", "Deferred tools"} {
		if strings.Contains(bare, not) {
			t.Errorf("empty options still print %q", not)
		}
	}
}

// A fresh `git init` with no commit is a repository on a branch, run
// against the real git binary; a plain directory is not.
func TestEnvironmentGitBeforeFirstCommit(t *testing.T) {
	testenv.Tool(t, "git")
	dir := t.TempDir()
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if env := Build(Options{Root: dir}).System[1].Text; !strings.Contains(env, "Git repository: no") {
		t.Fatalf("plain directory:\n%s", env)
	}
	gitIn("init", "-q")
	gitIn("symbolic-ref", "HEAD", "refs/heads/trunk")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	env := Build(Options{Root: dir}).System[1].Text
	if !strings.Contains(env, "Git repository: yes, branch trunk, no commits yet") || !strings.Contains(env, "1 changed path(s)") {
		t.Fatalf("fresh repository:\n%s", env)
	}
	gitIn("add", "a.txt")
	gitIn("commit", "-q", "-m", "first commit")
	env = Build(Options{Root: dir}).System[1].Text
	if !strings.Contains(env, "Git repository: yes, branch trunk\n") || !strings.Contains(env, "first commit") || !strings.Contains(env, "Git status: clean") {
		t.Fatalf("repository with a commit:\n%s", env)
	}
}

// What the prompt says each mode means is what the permission engine
// does: each meaning is checked against the engine's verdicts for an
// edit, a known-safe command, another command and a web fetch.
func TestModeMeaningsMatchEngine(t *testing.T) {
	root := t.TempDir()
	eng, err := permission.New(permission.Options{Root: root, HomeDir: t.TempDir(), HewHome: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	in := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	calls := []permission.Request{
		{Tool: "read_file", Input: in(map[string]string{"file_path": "a.go"})},
		{Tool: "edit_file", Input: in(map[string]string{"file_path": "a.go", "old_string": "a", "new_string": "b"})},
		{Tool: "run_shell", Input: in(map[string]string{"command": "ls"})},
		{Tool: "run_shell", Input: in(map[string]string{"command": "rm a.go"})},
		{Tool: "web_fetch", Input: in(map[string]string{"url": "https://example.com/"})},
	}
	// read, edit, safe shell, other shell, web: what each meaning promises
	// ("classify" = the auto-mode classifier decides).
	want := map[permission.Mode][5]string{
		permission.ModeDefault:     {"allow", "ask", "allow", "ask", "ask"},
		permission.ModeAcceptEdits: {"allow", "allow", "allow", "ask", "ask"},
		permission.ModePlan:        {"allow", "deny", "allow", "deny", "ask"},
		permission.ModeAuto:        {"allow", "classify", "allow", "classify", "classify"},
		permission.ModeBypass:      {"allow", "allow", "allow", "allow", "allow"},
		permission.ModeDontAsk:     {"allow", "deny", "allow", "deny", "deny"},
	}
	for mode, w := range want {
		if ModeMeaning(string(mode)) == "" {
			t.Errorf("mode %s has no meaning in the prompt", mode)
		}
		for i, c := range calls {
			c.Mode = mode
			v := eng.Check(c)
			got := string(v.Decision)
			if v.Classify {
				got = "classify"
			}
			if got != w[i] {
				t.Errorf("mode %s, %s %s: engine says %s, the prompt's meaning (%q) promises %s", mode, c.Tool, c.Input, got, ModeMeaning(string(mode)), w[i])
			}
		}
	}
	// acceptEdits still asks before changing a protected file, as it says.
	prot := permission.Request{Tool: "write_file", Mode: permission.ModeAcceptEdits, Input: in(map[string]string{"file_path": ".hew/settings.json", "content": "{}"})}
	if v := eng.Check(prot); v.Decision != permission.Ask || !strings.Contains(ModeMeaning("acceptEdits"), ".hew/settings.json") {
		t.Errorf("acceptEdits on a protected file: %+v", v)
	}
	if len(modeMeaning) != len(want) {
		t.Errorf("prompt explains %d modes, test checks %d", len(modeMeaning), len(want))
	}
}

// A mode change mid-session and a running goal are told in the message,
// never by changing the static core.
func TestModeNoteAndGoalNote(t *testing.T) {
	n := ModeNote("plan")
	if !strings.HasPrefix(n, "<system-reminder>\nPermission mode is now plan: read-only") || strings.Contains(Core(), n) {
		t.Errorf("mode note %q", n)
	}
	if g := GoalNote("tests pass"); !strings.Contains(g, "until this condition holds: tests pass") || !strings.Contains(g, "independent check") {
		t.Errorf("goal note %q", g)
	}
}
