package skills

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/skills"
)

func put(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The list shows each skill and names each broken one once, with why.
func TestListNamesSkillsAndProblems(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".hew", "skills")
	put(t, filepath.Join(dir, "good", "SKILL.md"), "---\nname: good\ndescription: does good things\n---\nDo it.\n")
	put(t, filepath.Join(dir, "unclosed", "SKILL.md"), "---\nname: unclosed\n")
	r := skills.Roots{Project: root, Home: t.TempDir(), HewHome: t.TempDir()}
	var out, errb bytes.Buffer
	if code := Run(Options{Stdout: &out, Stderr: &errb, Roots: r}, []string{"list"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	if !strings.Contains(got, "good (project") || !strings.Contains(got, "does good things") {
		t.Errorf("list lacks the good skill:\n%s", got)
	}
	if strings.Count(got, filepath.Join(dir, "unclosed", "SKILL.md")) != 1 || !strings.Contains(got, "not loaded:") {
		t.Errorf("list should name the broken skill once:\n%s", got)
	}
	out.Reset()
	if code := Run(Options{Stdout: &out, Stderr: &errb, Roots: skills.Roots{Project: t.TempDir()}}, nil); code != 0 || !strings.Contains(out.String(), "no skills found") {
		t.Errorf("empty: %d %q", code, out.String())
	}
	if code := Run(Options{Stdout: &out, Stderr: &errb, Roots: r}, []string{"frob"}); code != 2 {
		t.Errorf("bad usage: exit %d", code)
	}
	out.Reset()
	for _, args := range [][]string{{"--help"}, {"list", "--help"}} {
		out.Reset()
		if code := Run(Options{Stdout: &out, Stderr: &errb, Roots: r}, args); code != 0 || !strings.Contains(out.String(), "usage: hew skills list") {
			t.Errorf("%v: %d %q", args, code, out.String())
		}
	}
}

func TestDescribe(t *testing.T) {
	base := t.TempDir()
	r := skills.Roots{Project: filepath.Join(base, "p"), Home: filepath.Join(base, "home"), HewHome: filepath.Join(base, "hh")}
	put(t, filepath.Join(r.Home, ".claude/skills/greet/SKILL.md"), "---\ndescription: user greet\n---\nhi")
	put(t, filepath.Join(r.Project, ".hew/skills/greet/SKILL.md"), "---\ndescription: Greets\nargument-hint: NAME\ncontext: fork\nallowed-tools: Read\n---\nHello $ARGUMENTS")
	var out bytes.Buffer
	for _, s := range skills.Scan(r).Skills {
		out.WriteString(describe(s))
	}
	want := "greet (project, fork)  /greet NAME\n    Greets\n    " + filepath.Join(r.Project, ".hew/skills/greet/SKILL.md") +
		"\n    tools: read_file\n    shadows " + filepath.Join(r.Home, ".claude/skills/greet/SKILL.md") + "\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}
