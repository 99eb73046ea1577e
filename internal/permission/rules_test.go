package permission

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
)

func TestParseRule(t *testing.T) {
	cases := []struct {
		text, tool, pattern, err string
	}{
		{"Bash", "run_shell", "", ""},
		{"Bash(git log:*)", "run_shell", "git log:*", ""},
		{"run_shell(npm test*)", "run_shell", "npm test*", ""},
		{"Read(./secrets/**)", "read_file", "./secrets/**", ""},
		{"Edit(~/notes/*.md)", "edit_file", "~/notes/*.md", ""},
		{"Write(/etc/**)", "write_file", "/etc/**", ""},
		{"Grep", "grep_search", "", ""},
		{"Glob", "list_files", "", ""},
		{"WebFetch(domain:Example.com)", "web_fetch", "domain:example.com", ""},
		{"mcp__github", "mcp__github", "", ""},
		{"mcp__github__create_issue", "mcp__github__create_issue", "", ""},
		{"skill(deploy)", "skill", "deploy", ""},
		{"", "", "", "empty rule"},
		{"Bash(\xff)", "", "", "not valid UTF-8"},
		{"Bash(", "", "", "closing parenthesis"},
		{"Bash()", "", "", "empty pattern"},
		{"Shell(ls)", "", "", `unknown tool "Shell"`},
		{"web_fetch(example.com)", "", "", "domain:HOST"},
		{"mcp__", "", "", "names no server"},
		{"mcp__x(y)", "", "", "no pattern"},
		{"todo_write(x)", "", "", "takes no pattern"},
		{"Read([)", "", "", "invalid glob"},
		{"ls)", "", "", "unbalanced"},
	}
	for _, c := range cases {
		r, err := ParseRule(c.text, "/home/u")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.text, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if r.Tool != c.tool || r.Pattern != c.pattern {
			t.Errorf("%q: tool %q pattern %q", c.text, r.Tool, r.Pattern)
		}
	}
}

func TestInvalidRulesNameTheirSource(t *testing.T) {
	f := newFixture(t, `{"permissions": {"deny": ["Shell(rm)"], "allow": ["Bash()"]}}`)
	s, err := config.Load(config.Paths{Home: f.hewHome, Project: f.root, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Root: f.root, HomeDir: f.home, Settings: s, AllowedTools: []string{"WebFetch(x)"}})
	if err == nil {
		t.Fatal("invalid rules accepted")
	}
	// Each names the file with the rule's line:col (column 27 is the opening quote of "Shell(rm)").
	for _, want := range []string{filepath.Join(".hew", "settings.json") + `:1:27: invalid permission rule "Shell(rm)" in the deny list: unknown tool`,
		filepath.Join(".hew", "settings.json") + `:1:51: invalid permission rule "Bash()" in the allow list`,
		`--allowed-tools: invalid permission rule "WebFetch(x)" in the allow list`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// An untrusted project's allow rules are withheld, but one that cannot
// parse is still an error, named by file, line and column.
func TestCheckWithheld(t *testing.T) {
	for _, tc := range []struct{ settings, err string }{
		{`{"permissions": {"allow": ["Bash(npm test)"]}}`, ""},
		{`{"permissions": {"allow": ["Bash()"]}}`, filepath.Join(".hew", "settings.json") + `:1:28: invalid permission rule "Bash()" in the allow list`},
		{`{"permissions": {"deny": ["Read(.env)"]}}`, ""},
	} {
		f := newFixture(t, tc.settings)
		s, err := config.Load(config.Paths{Home: f.hewHome, Project: f.root})
		if err != nil {
			t.Fatal(err)
		}
		err = CheckWithheld(s, f.home)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.settings, err, tc.err)
		}
	}
}

func TestFileRules(t *testing.T) {
	f := newFixture(t, `{"permissions": {"deny": ["Read(.env)", "Read(secrets/)", "Edit(**/*.lock)"], "allow": ["Read(~/docs/**)", "Edit(/opt/shared/*.txt)"], "additionalDirectories": ["../extra"]}}`)
	if err := os.MkdirAll(filepath.Join(f.root, "..", "extra"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(f.root), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.root, "escape")); err != nil {
		t.Fatal(err)
	}
	e := f.engine(t)
	cases := []struct {
		tool, path string
		mode       Mode
		want       Decision
		source     string
	}{
		{"read_file", ".env", ModeBypass, Deny, "rule:deny Read(.env)"},
		{"read_file", "sub/dir/.env", ModeDefault, Deny, "rule:deny Read(.env)"},
		{"grep_search", "secrets", ModeDefault, Deny, "rule:deny Read(secrets/)"},
		{"read_file", "secrets/key.pem", ModeDefault, Deny, "rule:deny Read(secrets/)"},
		{"edit_file", "pkg/go.lock", ModeAcceptEdits, Deny, "rule:deny Edit(**/*.lock)"},
		{"write_file", "go.lock", ModeAcceptEdits, Deny, "rule:deny Edit(**/*.lock)"},
		{"read_file", "src/main.go", ModeDefault, Allow, "default"},
		{"read_file", "../outside/x", ModeDefault, Ask, "outside-project"},
		{"read_file", "escape/x", ModeDefault, Ask, "outside-project"},
		{"read_file", "src/../../outside/x", ModeDontAsk, Deny, "outside-project"},
		{"read_file", "~/docs/a/b.md", ModeDefault, Allow, "rule:allow Read(~/docs/**)"},
		{"list_files", "~/other", ModeDefault, Ask, "outside-project"},
		{"read_file", "../extra/notes.txt", ModeDefault, Allow, "default"},
		{"edit_file", "../extra/notes.txt", ModeAcceptEdits, Allow, "mode:acceptEdits"},
		{"edit_file", "/opt/shared/a.txt", ModeDefault, Allow, "rule:allow Edit(/opt/shared/*.txt)"},
		{"edit_file", "/opt/shared/a.md", ModeAcceptEdits, Ask, "outside-project"},
	}
	for _, c := range cases {
		v := e.Check(Request{Tool: c.tool, Input: in("file_path", c.path, "path", c.path), Mode: c.mode})
		if v.Decision != c.want || !strings.HasPrefix(v.Source, c.source) {
			t.Errorf("%s %s in %s: got %+v, want %s from %s", c.tool, c.path, c.mode, v, c.want, c.source)
		}
	}
	for _, c := range []struct {
		pattern string
		want    Decision
	}{{"**/*.go", Allow}, {"../outside/*", Ask}, {"/etc/*.conf", Ask}, {"src/../../*", Ask}} {
		if v := e.Check(Request{Tool: "list_files", Input: in("pattern", c.pattern), Mode: ModeDefault}); v.Decision != c.want {
			t.Errorf("list_files %q: %+v", c.pattern, v)
		}
	}
	if !e.AllowsOutside("read_file", filepath.Join(f.home, "docs", "x.md")) || e.AllowsOutside("read_file", "/etc/passwd") {
		t.Error("AllowsOutside disagrees with the rules")
	}
}

func TestWebAndMCPRulesAndGrants(t *testing.T) {
	f := newFixture(t, `{"permissions": {"allow": ["WebFetch(domain:go.dev)", "mcp__docs"], "deny": ["mcp__shell__exec"]}}`)
	e := f.engine(t)
	check := func(tool string, input json.RawMessage) Verdict {
		return e.Check(Request{Tool: tool, Input: input, Mode: ModeDefault})
	}
	expect := func(name string, v Verdict, want Decision) {
		t.Helper()
		if v.Decision != want {
			t.Errorf("%s: got %+v, want %s", name, v, want)
		}
	}
	expect("allowed domain", check("web_fetch", in("url", "https://go.dev/doc")), Allow)
	expect("subdomain", check("web_fetch", in("url", "https://pkg.go.dev/x")), Allow)
	expect("look-alike domain", check("web_fetch", in("url", "https://evilgo.dev/")), Ask)
	expect("other domain", check("web_fetch", in("url", "https://example.com/a")), Ask)
	expect("mcp server rule", check("mcp__docs__search", in()), Allow)
	expect("mcp prefix is not a server", check("mcp__docsx__search", in()), Ask)
	expect("mcp deny", check("mcp__shell__exec", in()), Deny)

	// "Yes for this session" covers the domain, the MCP tool, the exact command, the same file.
	e.Grant("web_fetch", in("url", "https://example.com/a"))
	expect("granted domain", check("web_fetch", in("url", "https://example.com/other")), Allow)
	expect("other domain still asks", check("web_fetch", in("url", "https://example.org/")), Ask)
	e.Grant("mcp__github__create_issue", in("title", "x"))
	expect("granted mcp tool", check("mcp__github__create_issue", in("title", "y")), Allow)
	expect("other tool of the server", check("mcp__github__delete_repo", in()), Ask)
	e.Grant("run_shell", shell("git push --force origin feature"))
	expect("granted command", check("run_shell", shell("git push --force origin feature")), Allow)
	expect("other command", check("run_shell", shell("git push --force origin main")), Ask)
	e.Grant("edit_file", in("file_path", "a.go", "old_string", "x", "new_string", "y"))
	expect("granted file", check("write_file", in("file_path", "a.go", "content", "z")), Allow)
	expect("other file", check("edit_file", in("file_path", "b.go")), Ask)
	if v := e.Check(Request{Tool: "edit_file", Input: in("file_path", "a.go"), Mode: ModePlan}); v.Decision != Deny {
		t.Errorf("a grant must not lift plan mode: %+v", v)
	}
}

// Every dangerous command of the shellparse corpus must not be auto-allowed
// in default mode; ordinary ones (S) must run without a prompt while the
// sandbox is active; A-labelled ones ask by design.
func TestCorpusThroughEngine(t *testing.T) {
	f := newFixture(t, "")
	e := f.engine(t, sandboxed)
	file, err := os.Open(filepath.Join("..", "shellparse", "testdata", "corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var dangerous, held, safe, prompted, asks, asked int
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		label, cmd, ok := strings.Cut(sc.Text(), "\t")
		if !ok || strings.HasPrefix(label, "#") {
			continue
		}
		v := e.Check(Request{Tool: "run_shell", Input: shell(cmd), Mode: ModeDefault})
		switch label {
		case "D":
			dangerous++
			if v.Decision != Allow {
				held++
			} else {
				t.Errorf("dangerous command auto-allowed: %s (%s)", cmd, v.Reason)
			}
		case "A":
			asks++
			if v.Decision != Allow {
				asked++
			} else {
				t.Errorf("command allowed unasked, want a question: %s (%s)", cmd, v.Reason)
			}
		default:
			safe++
			if v.Decision != Allow {
				prompted++
				t.Errorf("ordinary command not allowed: %s → %s (%s)", cmd, v.Decision, v.Reason)
			}
		}
	}
	t.Logf("engine, default mode, sandbox active: dangerous held %d/%d, asks-by-design %d/%d, ordinary prompted %d/%d", held, dangerous, asked, asks, prompted, safe)
}

func BenchmarkCheckShell(b *testing.B) {
	f := newFixture(b, `{"permissions": {"deny": ["run_shell(rm -rf*)"], "allow": ["Bash(git log:*)", "Bash(npm test:*)"]}}`)
	e := f.engine(b)
	req := Request{Tool: "run_shell", Input: shell("git log --oneline | head -20 && npm test 2>&1 | tail"), Mode: ModeDefault}
	b.ReportAllocs()
	for b.Loop() {
		e.Check(req)
	}
}

// BenchmarkCheckLong50 measures the whole decision (rules, floors, the
// allowlist analysis, the suggestion) for a 50-part compound command.
func BenchmarkCheckLong50(b *testing.B) {
	f := newFixture(b, `{"permissions": {"deny": ["run_shell(rm -rf*)"], "ask": ["Bash(git push:*)"], "allow": ["Bash(git log:*)", "Bash(npm test:*)"]}}`)
	e := f.engine(b, sandboxed)
	parts := []string{"ls -la", "git status", "git log --oneline | head -3", "grep -rn TODO .", "go vet ./...",
		"echo $(git rev-parse HEAD)", "cat go.mod", "wc -l main.go", "npm test", "sort -u f"}
	var cmds []string
	for i := 0; i < 50; i++ {
		cmds = append(cmds, parts[i%len(parts)])
	}
	req := Request{Tool: "run_shell", Input: shell(strings.Join(cmds, " && ")), Mode: ModeDefault}
	if v := e.Check(req); v.Decision != Allow {
		b.Fatalf("%+v", v)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Check(req)
	}
}

// ParseRule never panics: a rule comes from settings files and flags.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash(git log:*)", "Read(~/docs/**)", "WebFetch(domain:x.test)", "Bash(\xff)", "Edit(/a/*.go)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s, "/home/u")
		if (r == nil) == (err == nil) {
			t.Fatalf("%q: rule %v error %v", s, r, err)
		}
	})
}
