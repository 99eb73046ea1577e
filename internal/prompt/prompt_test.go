package prompt

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

func noGit(...string) (string, error) { return "", errors.New("no git") }

// The static core must be byte-identical across sessions and machines: its
// bytes are pinned by a golden file, and nothing of the machine leaks in.
func TestStaticCoreGolden(t *testing.T) {
	a := Build(Options{Root: "/proj-xyz", GOOS: "linux", Mode: "default", Now: time.Now(), Git: noGit})
	b := Build(Options{Root: "/elsewhere", GOOS: "darwin", Mode: "plan", Model: "x", Append: "extra", Git: noGit})
	if a.System[0].Text != b.System[0].Text || !a.System[0].Cache {
		t.Fatal("static core differs between sessions or is not cached")
	}
	golden := filepath.Join("testdata", "static_core.golden")
	if *update {
		os.WriteFile(golden, []byte(a.System[0].Text), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if a.System[0].Text != string(want) {
		t.Fatal("static core changed; if intended, run go test ./internal/prompt -update")
	}
	for _, s := range []string{"/proj-xyz", "linux", time.Now().Format("2006-01-02")} {
		if strings.Contains(a.System[0].Text, s) {
			t.Fatalf("static core contains machine detail %q", s)
		}
	}
}

func TestEnvironmentBlock(t *testing.T) {
	git := func(args ...string) (string, error) {
		switch args[0] {
		case "rev-parse":
			if args[1] == "--is-inside-work-tree" {
				return "true\n", nil
			}
			return "abc123\n", nil
		case "symbolic-ref":
			return "main\n", nil
		case "status":
			return " M a.go\n?? b.go\n", nil
		case "log":
			return "abc123 first\n", nil
		}
		return "", errors.New("?")
	}
	p := Build(Options{Root: "/p", GOOS: "linux", Shell: "bash", Mode: "acceptEdits", Append: "Always answer in French.",
		MCPInstructions: "## db\nUse read-only queries.", Git: git})
	env := p.System[1].Text
	for _, want := range []string{"/p", "linux", "branch main", "2 changed path(s)", "abc123 first", "acceptEdits", "## db\nUse read-only queries.", "Always answer in French."} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %q:\n%s", want, env)
		}
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInstructions(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	sub := filepath.Join(repo, "pkg", "sub")
	home, hewHome := filepath.Join(base, "home"), filepath.Join(base, "hewhome")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(base, "AGENTS.md"), "OUTSIDE-REPO must not appear")
	write(t, filepath.Join(repo, "AGENTS.md"), "repo rule\n@./docs/style.md\n@~/personal.md\n@missing.md")
	write(t, filepath.Join(repo, "docs", "style.md"), "style rule\n@../AGENTS.md\n@./deep1.md")
	for i := 1; i <= 7; i++ {
		write(t, filepath.Join(repo, "docs", "deep"+string(rune('0'+i))+".md"), "deep"+string(rune('0'+i))+"\n@./deep"+string(rune('0'+i+1))+".md")
	}
	write(t, filepath.Join(home, "personal.md"), "personal rule")
	write(t, filepath.Join(sub, "CLAUDE.md"), "sub rule")
	write(t, filepath.Join(sub, ".hew", "rules", "b.md"), "rule b")
	write(t, filepath.Join(sub, ".claude", "rules", "a.md"), "rule a")
	write(t, filepath.Join(hewHome, "AGENTS.md"), "user-wide rule")

	inst := LoadInstructions(sub, home, hewHome)
	for _, want := range []string{"repo rule", "style rule", "personal rule", "sub rule", "rule a", "rule b", "user-wide rule", "deep1", "depth limit"} {
		if !strings.Contains(inst.Text, want) {
			t.Errorf("instructions lack %q:\n%s", want, inst.Text)
		}
	}
	if strings.Contains(inst.Text, "OUTSIDE-REPO") {
		t.Error("file above the repository root included")
	}
	if strings.Count(inst.Text, "repo rule") != 1 {
		t.Error("include cycle not broken")
	}
	if strings.Contains(inst.Text, "deep7") {
		t.Error("depth limit not applied")
	}
	// Order: user-wide first, outer before inner.
	if strings.Index(inst.Text, "user-wide rule") > strings.Index(inst.Text, "repo rule") || strings.Index(inst.Text, "repo rule") > strings.Index(inst.Text, "sub rule") {
		t.Error("wrong order")
	}

	p := Build(Options{Root: sub, HomeDir: home, HewHome: hewHome, Now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Git: noGit})
	if !strings.HasPrefix(p.Reminder, "<system-reminder>") || !strings.Contains(p.Reminder, "Today's date: 2026-11-30") || !strings.Contains(p.Reminder, "sub rule") {
		t.Fatalf("reminder: %s", p.Reminder)
	}
	if strings.Contains(p.System[0].Text+p.System[1].Text, "sub rule") {
		t.Fatal("instructions leaked into the system prompt")
	}
	if got := WithReminder(p.Reminder, "fix it"); !strings.HasSuffix(got, "\n\nfix it") {
		t.Fatalf("WithReminder: %q", got)
	}
}

func TestNoRepoOnlyWorkingDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "w")
	write(t, filepath.Join(base, "AGENTS.md"), "parent")
	write(t, filepath.Join(dir, "AGENTS.md"), "here")
	inst := LoadInstructions(dir, "", "")
	if !strings.Contains(inst.Text, "here") || strings.Contains(inst.Text, "parent") {
		t.Fatalf("got %q", inst.Text)
	}
}

func TestInlineIncludesAndRootRules(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "a", "b")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(repo, "AGENTS.md"), "See @./inc.md for style. Not `@./code.md` and not\n```\n@./fenced.md\n```\nmail me@example.com")
	write(t, filepath.Join(repo, "inc.md"), "INLINE-INCLUDED")
	write(t, filepath.Join(repo, "code.md"), "CODE-SPAN")
	write(t, filepath.Join(repo, "fenced.md"), "FENCED")
	write(t, filepath.Join(repo, ".claude", "rules", "r.md"), "ROOT-RULE")
	inst := LoadInstructions(sub, "", "")
	for _, want := range []string{"See @./inc.md for style.", "INLINE-INCLUDED", "ROOT-RULE", "me@example.com"} {
		if !strings.Contains(inst.Text, want) {
			t.Errorf("lacks %q:\n%s", want, inst.Text)
		}
	}
	for _, bad := range []string{"CODE-SPAN", "FENCED"} {
		if strings.Contains(inst.Text, bad) {
			t.Errorf("included %s", bad)
		}
	}
}
