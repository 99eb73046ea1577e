package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func roots(t *testing.T) Roots {
	base := t.TempDir()
	return Roots{Project: filepath.Join(base, "p"), Home: filepath.Join(base, "home"), HewHome: filepath.Join(base, "hh")}
}

func byName(list []Skill) map[string]Skill {
	m := map[string]Skill{}
	for _, s := range list {
		m[s.Name] = s
	}
	return m
}

func TestDiscoverPrecedence(t *testing.T) {
	r := roots(t)
	userClaude := filepath.Join(r.Home, ".claude/skills/deploy/SKILL.md")
	userHew := filepath.Join(r.HewHome, "skills/deploy/SKILL.md")
	projClaude := filepath.Join(r.Project, ".claude/skills/deploy/SKILL.md")
	put(t, userClaude, "---\ndescription: claude user deploy\n---\nu1")
	put(t, userHew, "---\ndescription: hew user deploy\n---\nu2")
	put(t, projClaude, "---\nname: deploy\ndescription: project deploy\n---\nDeploy $ARGUMENTS from ${CLAUDE_SKILL_DIR}")
	put(t, filepath.Join(r.HewHome, "skills/onlyuser/SKILL.md"), "---\ndescription: mine\n---\nbody")
	put(t, filepath.Join(r.Project, ".hew/skills/empty/README.md"), "not a skill")

	c := Scan(r)
	if len(c.Problems) != 0 {
		t.Fatalf("problems: %v", c.Problems)
	}
	got := byName(c.Skills)
	if len(got) != 2 {
		t.Fatalf("skills: %+v", c.Skills)
	}
	d := got["deploy"]
	if d.Source != "project" || d.Description != "project deploy" || d.Path != projClaude {
		t.Errorf("project skill should win: %+v", d)
	}
	if strings.Join(d.Shadows, "|") != userHew+"|"+userClaude {
		t.Errorf("shadows = %v", d.Shadows)
	}
	if got["onlyuser"].Source != "user" {
		t.Errorf("user skill: %+v", got["onlyuser"])
	}
	// .hew beats .claude inside the project.
	put(t, filepath.Join(r.Project, ".hew/skills/deploy/SKILL.md"), "---\ndescription: hew project\n---\nb")
	if d := byName(Discover(r))["deploy"]; d.Description != "hew project" || len(d.Shadows) != 3 {
		t.Errorf(".hew should beat .claude: %+v", d)
	}
}

func TestFrontmatterFields(t *testing.T) {
	tests := []struct {
		name, file string
		check      func(t *testing.T, s Skill)
	}{
		{"all fields", "---\nname: greet\ndescription: Greets someone\nwhen_to_use: when asked to greet\nallowed-tools: Read, Grep, Bash(git status:*)\nuser-invocable: true\ncontext: fork\nargument-hint: NAME\nmodel: small-model\n---\nHello $1", func(t *testing.T, s Skill) {
			if s.Name != "greet" || s.Description != "Greets someone" || s.WhenToUse != "when asked to greet" ||
				!s.Fork() || s.ArgumentHint != "NAME" || s.Model != "small-model" || !s.UserInvocable {
				t.Errorf("%+v", s)
			}
			if strings.Join(s.AllowedTools, ",") != "read_file,grep_search,run_shell(git status:*)" {
				t.Errorf("allowed tools = %q", s.AllowedTools)
			}
		}},
		{"unquoted colon", "---\ndescription: a: b\n---\nbody", func(t *testing.T, s Skill) {
			if s.Description != "a: b" {
				t.Errorf("description = %q", s.Description)
			}
		}},
		{"colon with list fallback", "---\ndescription: Review: check the diff\nallowed-tools:\n  - Read\n  - Bash(go test ./...)\nuser-invocable: no\n---\n# Review\nSteps", func(t *testing.T, s Skill) {
			if s.Description != "Review: check the diff" || s.UserInvocable || strings.Join(s.AllowedTools, ",") != "read_file,run_shell(go test ./...)" {
				t.Errorf("%+v", s)
			}
		}},
		{"yaml list", "---\nallowed-tools: [Read, Write]\n---\nx", func(t *testing.T, s Skill) {
			if strings.Join(s.AllowedTools, ",") != "read_file,write_file" {
				t.Errorf("%q", s.AllowedTools)
			}
		}},
		{"unknown tool warns", "---\nallowed-tools: Read WebSearch\n---\nx", func(t *testing.T, s Skill) {
			if strings.Join(s.AllowedTools, ",") != "read_file" || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "WebSearch") {
				t.Errorf("%q %q", s.AllowedTools, s.Warnings)
			}
		}},
		{"no frontmatter", "# Plain skill\nno frontmatter", func(t *testing.T, s Skill) {
			if s.Description != "Plain skill" || !s.UserInvocable || s.Context != ContextInline || s.AllowedTools != nil {
				t.Errorf("%+v", s)
			}
		}},
		{"folded description", "---\ndescription: >\n  first part\n  second part\n---\nb", func(t *testing.T, s Skill) {
			if s.Description != "first part second part" {
				t.Errorf("%q", s.Description)
			}
		}},
		{"crlf", "---\r\ndescription: windows\r\n---\r\nbody\r\n", func(t *testing.T, s Skill) {
			if s.Description != "windows" || s.Body != "body" {
				t.Errorf("%+v", s)
			}
		}},
		{"disable model invocation", "---\ndisable-model-invocation: true\n---\nb", func(t *testing.T, s Skill) {
			if s.ModelInvocable || !s.UserInvocable {
				t.Errorf("%+v", s)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parse("/x/skill-dir/SKILL.md", []byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}

func TestBrokenSkillsReportedOthersLoad(t *testing.T) {
	r := roots(t)
	dir := filepath.Join(r.Project, ".hew/skills")
	put(t, filepath.Join(dir, "good/SKILL.md"), "---\ndescription: fine\n---\nbody")
	broken := map[string]string{
		"unclosed": "---\ndescription: x\nbody without end",
		"ctx":      "---\ncontext: forked\n---\nbody",
		"empty":    "---\ndescription: nothing\n---\n",
		"badname":  "---\nname: has space\n---\nbody",
		"badbool":  "---\nuser-invocable: maybe\n---\nbody",
	}
	for n, body := range broken {
		put(t, filepath.Join(dir, n, "SKILL.md"), body)
	}
	c := Scan(r)
	if len(c.Skills) != 1 || c.Skills[0].Name != "good" {
		t.Fatalf("skills: %+v", c.Skills)
	}
	if len(c.Problems) != len(broken) {
		t.Fatalf("problems: %v", c.Problems)
	}
	want := map[string]string{"unclosed": "never closed", "ctx": "neither inline nor fork", "empty": "body after the frontmatter is empty", "badname": "use letters", "badbool": "not true or false"}
	for _, p := range c.Problems {
		n := filepath.Base(filepath.Dir(p.Path))
		if !strings.Contains(p.Reason, want[n]) {
			t.Errorf("%s: reason %q, want %q", n, p.Reason, want[n])
		}
	}
}

func TestExpand(t *testing.T) {
	s := Skill{Dir: "/skills/x"}
	tests := []struct{ body, args, want string }{
		{"Hi $ARGUMENTS and ${ARGUMENTS}", "Bob Lee", "Hi Bob Lee and Bob Lee"},
		{"first=$1 second=${2} third=[$3]", `one "two words" three`, "first=one second=two words third=[three]"},
		{"zero=$ARGUMENTS[0] one=$ARGUMENTS[1]", "a b", "zero=a one=b"},
		{"dir ${HEW_SKILL_DIR} and ${CLAUDE_SKILL_DIR}", "", "dir /skills/x and /skills/x"},
		{"no placeholder", "extra", "no placeholder\n\nARGUMENTS: extra"},
		{"no placeholder", "", "no placeholder"},
		{"keep $1 literal in args: $ARGUMENTS", "$1", "keep $1 literal in args: $1"},
		{"missing $2.", "one", "missing ."},
	}
	for _, tc := range tests {
		s.Body = tc.body
		if got := s.Expand(tc.args); got != tc.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		in, name, args string
		ok             bool
	}{
		{"/greet Bob", "greet", "Bob", true},
		{"  /greet   Bob  Lee ", "greet", "Bob  Lee", true},
		{"/greet", "greet", "", true},
		{"/greet\nmore lines", "greet", "more lines", true},
		{"/usr/bin/env explain", "", "", false},
		{"greet Bob", "", "", false},
		{"/", "", "", false},
	}
	for _, tc := range tests {
		n, a, ok := ParseCommand(tc.in)
		if n != tc.name || a != tc.args || ok != tc.ok {
			t.Errorf("ParseCommand(%q) = %q %q %v", tc.in, n, a, ok)
		}
	}
}

func TestIndexSortedCappedAndSearchable(t *testing.T) {
	var list []Skill
	for i := MaxIndexEntries + 4; i >= 0; i-- { // reverse order in
		n := "s" + strings.Repeat("0", 3-len(itoa(i))) + itoa(i)
		list = append(list, Skill{Name: n, Description: "does " + n, WhenToUse: "when " + n, ModelInvocable: true})
	}
	list = append(list, Skill{Name: "hidden", Description: "user only", ModelInvocable: false})
	sortSkills(list)
	idx := Index(list)
	lines := strings.Split(strings.TrimSpace(idx), "\n")
	if len(lines) != MaxIndexEntries+1 {
		t.Fatalf("%d lines:\n%s", len(lines), idx)
	}
	if lines[0] != "- s000: does s000" || !strings.Contains(lines[len(lines)-1], "5 more skills") || strings.Contains(idx, "hidden") {
		t.Errorf("index:\n%s", idx)
	}
	if Index(list) != idx {
		t.Error("index bytes differ between calls")
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+i/10)) + string(rune('0'+i%10)))
}

func sortSkills(list []Skill) {
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			if list[j].Name < list[i].Name {
				list[i], list[j] = list[j], list[i]
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"---\ndescription: a: b\n---\nx", "---\n- x\n  y: [\n---\nbody", "---\n---\n", "no front", "---\nallowed-tools: Bash(a, b) Read\n---\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		s, err := parse("/d/n/SKILL.md", []byte(data))
		if err != nil {
			return
		}
		if s.Name == "" || s.Body == "" || strings.ContainsAny(s.Description, "\n") {
			t.Fatalf("loaded a bad skill: %+v", s)
		}
		_ = s.Expand(data)
	})
}
