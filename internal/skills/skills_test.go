package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func put(t *testing.T, path, body string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverPrecedenceAndFrontmatter(t *testing.T) {
	base := t.TempDir()
	r := Roots{Project: filepath.Join(base, "p"), Home: filepath.Join(base, "home"), HewHome: filepath.Join(base, "hh")}
	put(t, filepath.Join(r.Home, ".claude/skills/deploy/SKILL.md"), "---\nname: deploy\ndescription: user deploy\n---\nuser body")
	put(t, filepath.Join(r.Project, ".claude/skills/deploy/SKILL.md"), "---\nname: deploy\ndescription: project deploy\n---\nDeploy $ARGUMENTS from ${CLAUDE_SKILL_DIR}")
	put(t, filepath.Join(r.HewHome, "skills/review/SKILL.md"), "---\ndescription: Review: check the diff\nuser-invocable: false\n---\n# Review\nSteps")
	put(t, filepath.Join(r.Project, ".hew/skills/plain/SKILL.md"), "# Plain skill\nno frontmatter")
	put(t, filepath.Join(r.Project, ".hew/skills/empty/README.md"), "not a skill")

	list := Discover(r)
	got := map[string]Skill{}
	for _, s := range list {
		got[s.Name] = s
	}
	if len(list) != 3 {
		t.Fatalf("found %d skills: %+v", len(list), list)
	}
	if d := got["deploy"]; d.Source != "project" || d.Description != "project deploy" {
		t.Errorf("project skill did not override user skill: %+v", d)
	}
	// "Review: check the diff" is invalid YAML (mapping in a value); the lenient reader keeps it.
	if rv := got["review"]; rv.Description != "Review: check the diff" || rv.UserInvocable || rv.Warning == "" {
		t.Errorf("lenient frontmatter: %+v", rv)
	}
	if p := got["plain"]; p.Description != "Plain skill" || !p.UserInvocable {
		t.Errorf("plain: %+v", p)
	}
	if idx := Index(list); !strings.Contains(idx, "- deploy: project deploy") {
		t.Errorf("index: %s", idx)
	}

	tool := NewTool(list)
	res, err := tool.Run(context.Background(), nil, json.RawMessage(`{"name":"deploy","arguments":"v2"}`))
	if err != nil || !strings.Contains(res.Content, "Deploy v2 from "+filepath.Join(r.Project, ".claude/skills/deploy")) {
		t.Fatalf("run: %v %q", err, res.Content)
	}
	if _, err := tool.Run(context.Background(), nil, json.RawMessage(`{"name":"nope"}`)); err == nil || !strings.Contains(err.Error(), "available: deploy, plain, review") {
		t.Fatalf("unknown skill error: %v", err)
	}

	var out, errb bytes.Buffer
	if code := Command([]string{"list"}, &out, &errb, r); code != 0 || !strings.Contains(out.String(), "deploy (project)  /deploy") {
		t.Fatalf("list: %d %s", code, out.String())
	}
}

func TestCommandHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"list", "--help"}} {
		var out, errb bytes.Buffer
		if code := Command(args, &out, &errb, Roots{}); code != 0 || !strings.Contains(out.String(), "usage: hew skills list") {
			t.Errorf("%v: %d %q", args, code, out.String())
		}
	}
}
