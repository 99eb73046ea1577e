package spec

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// projectKey is SPEC section 3's KEY: the first 16 hex digits of the
// sha256 of the absolute working directory.
func projectKey(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:])[:16]
}

// sessionRecords reads a session file; every line must be a JSON object.
func sessionRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: a line is not JSON: %q", path, sc.Text())
		}
		recs = append(recs, m)
	}
	return recs
}

// firstUserText returns the text of the first user message recorded in a
// session file: where the project instructions go (the system reminder).
func firstUserText(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// SPEC section 3: $HEW_HOME/projects/KEY/sessions/ID.jsonl.
func TestSessionFileLayout(t *testing.T) {
	w := newWorld(t)
	w.write("greeting.txt", "hello\n")
	r := w.hew("-p", "--mock", "--output-format", "json", "read greeting.txt")
	res := jsonResult(t, r)
	id := res.str("session_id")
	if id == "" {
		t.Fatalf("no session_id\n%s", r)
	}
	path := filepath.Join(w.home, "projects", projectKey(w.proj), "sessions", id+".jsonl")
	recs := sessionRecords(t, path)
	if len(recs) < 3 {
		t.Fatalf("session %s has %d records, want the user message, tool call and answer", path, len(recs))
	}
	if !strings.Contains(firstUserText(t, path), "read greeting.txt") {
		t.Fatalf("the session does not hold the prompt")
	}
	// hew writes nothing into the project (issue 4, privacy).
	entries, _ := os.ReadDir(w.proj)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("hew wrote into the project: %v", names)
	}
}

// SPEC section 3: AGENTS.md / CLAUDE.md from the working directory up to the
// repository root, $HEW_HOME/AGENTS.md, @includes (./, ~/, /abs; cycles
// safe), .hew/rules and .claude/rules. They reach the model in the first
// user message (recorded in the session).
func TestProjectInstructions(t *testing.T) {
	w := newWorld(t)
	repo := w.proj
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(filepath.Dir(w.proj), "abs-include.md")
	w.write(abs, "MARK-ABS-INCLUDE\n")
	w.write(filepath.Join(w.user, "home-include.md"), "MARK-TILDE-INCLUDE\n")
	w.write(filepath.Join(w.home, "AGENTS.md"), "MARK-HEW-HOME\n")
	w.write("AGENTS.md", "MARK-ROOT-AGENTS\n@./inc.md\nSee also @./inline.md for more.\n")
	w.write("inline.md", "MARK-INLINE-INCLUDE\n")
	w.write(".hew/rules/root.md", "MARK-ROOT-HEW-RULE\n")
	w.write(".claude/rules/root.md", "MARK-ROOT-CLAUDE-RULE\n")
	w.write("inc.md", "MARK-DOT-INCLUDE\n@./AGENTS.md\n@~/home-include.md\n@"+abs+"\n")
	w.write("sub/CLAUDE.md", "MARK-SUB-CLAUDE\n")
	w.write("sub/.hew/rules/r.md", "MARK-HEW-RULE\n")
	w.write("sub/.claude/rules/c.md", "MARK-CLAUDE-RULE\n")
	w.write("sub/AGENTS.md", "MARK-SUB-AGENTS\n")
	w.write("unrelated/AGENTS.md", "MARK-SIBLING\n")
	sub := filepath.Join(repo, "sub")
	r := w.exec(call{args: []string{"-p", "--mock", "--output-format", "json", "hi"}, dir: sub})
	res := jsonResult(t, r)
	path := filepath.Join(w.home, "projects", projectKey(sub), "sessions", res.str("session_id")+".jsonl")
	text := firstUserText(t, path)
	for _, mark := range []string{"MARK-HEW-HOME", "MARK-ROOT-AGENTS", "MARK-DOT-INCLUDE", "MARK-TILDE-INCLUDE",
		"MARK-ABS-INCLUDE", "MARK-SUB-CLAUDE", "MARK-SUB-AGENTS", "MARK-HEW-RULE", "MARK-CLAUDE-RULE",
		"MARK-INLINE-INCLUDE", "MARK-ROOT-HEW-RULE", "MARK-ROOT-CLAUDE-RULE"} {
		if !strings.Contains(text, mark) {
			t.Errorf("the instructions given to the model lack %s", mark)
		}
	}
	if strings.Contains(text, "MARK-SIBLING") {
		t.Errorf("a sibling directory's AGENTS.md was included")
	}
	// The include cycle (AGENTS.md → inc.md → AGENTS.md) is cut, not repeated.
	if n := strings.Count(text, "MARK-DOT-INCLUDE"); n > 2 {
		t.Errorf("include cycle repeated the text %d times", n)
	}
}

// SPEC section 3: skills paths and precedence; `hew skills list` says
// where each came from.
func TestSkillsList(t *testing.T) {
	w := newWorld(t)
	skill := func(dir, name, desc string) {
		w.write(filepath.Join(dir, name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n---\nDo "+desc+".\n")
	}
	skill(filepath.Join(w.proj, ".hew/skills"), "alpha", "project hew alpha")
	skill(filepath.Join(w.proj, ".claude/skills"), "beta", "project claude beta")
	skill(filepath.Join(w.home, "skills"), "gamma", "hew home gamma")
	skill(filepath.Join(w.user, ".claude/skills"), "delta", "user claude delta")
	skill(filepath.Join(w.user, ".claude/skills"), "alpha", "user alpha loses")
	skill(filepath.Join(w.home, "skills"), "beta", "user beta loses")
	r := w.hew("skills", "list")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	for _, want := range []string{"alpha", "beta", "gamma", "delta", "project hew alpha", "project claude beta",
		filepath.Join(w.proj, ".hew/skills/alpha/SKILL.md"), filepath.Join(w.user, ".claude/skills/delta/SKILL.md"),
		filepath.Join(w.home, "skills/gamma/SKILL.md")} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("skills list lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, lost := range []string{"user alpha loses", "user beta loses"} {
		if strings.Contains(r.stdout, lost) {
			t.Errorf("a user skill overrode the project one of the same name (%q)", lost)
		}
	}
	// With a skill present the model sees the skill tool.
	r = w.hew("-p", "--mock", "--output-format", "stream-json", "hi")
	if !contains(toolNames(ofType(events(t, r), "init")[0]), "skill") {
		t.Fatalf("skill tool missing from init tools\n%s", r)
	}
}

// SPEC section 3 + section 1: memory layout and `hew memory`.
func TestMemory(t *testing.T) {
	w := newWorld(t)
	dir := filepath.Join(w.home, "projects", projectKey(w.proj), "memory")
	r := w.hew("memory", "path")
	if r.code != 0 || strings.TrimSpace(r.stdout) != dir {
		t.Fatalf("memory path = %q, want %q\n%s", strings.TrimSpace(r.stdout), dir, r)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		typ   string
		name  string
	}{
		{[]string{"memory", "add", "--type", "user", "--name", "likes-tea", "The user likes tea"}, "", "user", "likes-tea"},
		{[]string{"memory", "add", "--type", "feedback", "--name", "short-answers", "-"}, "Keep answers short\n", "feedback", "short-answers"},
		{[]string{"memory", "add", "--type", "project", "--name", "uses-make", "Build with make"}, "", "project", "uses-make"},
		{[]string{"memory", "add", "--type", "reference", "--name", "ci-docs", "CI docs live in docs/ci.md"}, "", "reference", "ci-docs"},
	} {
		r := w.exec(call{args: tc.args, stdin: tc.stdin})
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.args, r.code, r)
		}
		file := filepath.Join(dir, tc.typ, tc.name+".md")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("memory file %s: %v", file, err)
		}
		if !strings.HasPrefix(string(b), "---\n") {
			t.Fatalf("memory file %s has no frontmatter:\n%s", file, b)
		}
	}
	index, err := os.ReadFile(filepath.Join(dir, "MEMORY.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"likes-tea", "short-answers", "uses-make", "ci-docs"} {
		if !strings.Contains(string(index), n) {
			t.Errorf("MEMORY.md index lacks %s", n)
		}
	}
	r = w.hew("memory", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "likes-tea") || !strings.Contains(r.stdout, "ci-docs") {
		t.Fatalf("memory list:\n%s", r)
	}
	r = w.hew("memory", "show", "short-answers")
	if r.code != 0 || !strings.Contains(r.stdout, "Keep answers short") {
		t.Fatalf("memory show:\n%s", r)
	}
	r = w.hew("memory", "rm", "likes-tea")
	if r.code != 0 {
		t.Fatalf("memory rm:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "user", "likes-tea.md")); err == nil {
		t.Fatal("memory rm left the file")
	}
	if r = w.hew("memory", "show", "likes-tea"); r.code == 0 {
		t.Fatalf("show of a removed memory succeeded\n%s", r)
	}
	if r = w.hew("memory", "add", "--type", "nosuch", "x"); r.code != 2 {
		t.Fatalf("bad memory type: exit %d, want 2\n%s", r.code, r)
	}
}

// SPEC section 3 + 1: .mcp.json, mcpServers in settings, `hew mcp
// list|add|remove`, and `hew mcp serve` (hew itself as the server).
func TestMCPCommands(t *testing.T) {
	w := newWorld(t)
	r := w.hew("mcp", "add", "--scope", "project", "self", "--", hewBin, "mcp", "serve")
	if r.code != 0 {
		t.Fatalf("mcp add: exit %d\n%s", r.code, r)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(w.read(".mcp.json")), &cfg); err != nil {
		t.Fatalf(".mcp.json: %v", err)
	}
	if s := cfg.MCPServers["self"]; s.Command != hewBin || strings.Join(s.Args, " ") != "mcp serve" {
		t.Fatalf(".mcp.json server: %+v", cfg.MCPServers)
	}
	r = w.hew("mcp", "add", "--scope", "project", "--transport", "http", "web", "http://127.0.0.1:9/mcp")
	if r.code != 0 {
		t.Fatalf("mcp add http: %s", r)
	}
	if !strings.Contains(w.read(".mcp.json"), `"url"`) || !strings.Contains(w.read(".mcp.json"), `"http"`) {
		t.Fatalf(".mcp.json lacks the http server:\n%s", w.read(".mcp.json"))
	}
	w.write(filepath.Join(w.home, "settings.json"), `{"mcpServers":{"fromuser":{"command":"/bin/false"}}}`)
	r = w.hew("mcp", "list")
	if r.code != 0 {
		t.Fatalf("mcp list: %s", r)
	}
	for _, want := range []string{"self", "web", "fromuser"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mcp list lacks %s:\n%s", want, r.stdout)
		}
	}
	// hew mcp serve answered: its tools are counted. The line of "self"
	// must not say failed.
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "self") && strings.Contains(line, "failed") {
			t.Errorf("hew mcp serve did not connect: %s", line)
		}
	}
	// Its tools reach a session as mcp__self__TOOL, pass permissions
	// (mcp__SERVER rule) and return results.
	w.write("g.txt", "served by mcp\n")
	sc := `{"turns":[{"text":"x","tool_calls":[{"name":"mcp__self__read_file","input":{"file_path":"g.txt"}}]},{"text":"done"}]}`
	r = w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "stream-json", "--allowed-tools", "mcp__self", "go")
	evs := events(t, r)
	if !contains(toolNames(ofType(evs, "init")[0]), "mcp__self__read_file") {
		t.Fatalf("init tools lack mcp__self__read_file\n%s", r)
	}
	tr := ofType(evs, "tool_result")
	if len(tr) != 1 || tr[0]["is_error"] != false || !strings.Contains(tr[0].str("content"), "served by mcp") {
		t.Fatalf("mcp tool call failed\n%s", r)
	}
	// Without the rule, headless denies the MCP call (default: ask).
	r = w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "json", "go")
	if res := jsonResult(t, r); len(res["permission_denials"].([]any)) != 1 {
		t.Fatalf("MCP call without a rule was not denied in headless mode\n%s", r)
	}
	r = w.hew("mcp", "remove", "web")
	if r.code != 0 || strings.Contains(w.read(".mcp.json"), `"web"`) {
		t.Fatalf("mcp remove: %s\n%s", r, w.read(".mcp.json"))
	}
	if r = w.hew("mcp", "remove", "nosuch"); r.code == 0 {
		t.Fatalf("removing an unknown server succeeded\n%s", r)
	}
}

// --mcp-config FILE adds servers for one run.
func TestMCPConfigFlag(t *testing.T) {
	w := newWorld(t)
	cfg := w.write(filepath.Join(filepath.Dir(w.proj), "extra-mcp.json"),
		`{"mcpServers":{"viaflag":{"command":"`+hewBin+`","args":["mcp","serve"]}}}`)
	r := w.hew("-p", "--mock", "--output-format", "stream-json", "--mcp-config", cfg, "hi")
	if !contains(toolNames(ofType(events(t, r), "init")[0]), "mcp__viaflag__read_file") {
		t.Fatalf("--mcp-config server's tools missing\n%s", r)
	}
}

// Memories of the project reach the model when they bear on the message:
// recalled into the message's reminder as index lines (issue 16), not all
// of them into every session.
func TestMemoryReachesModel(t *testing.T) {
	w := newWorld(t)
	if r := w.hew("memory", "add", "--type", "feedback", "--name", "tabs", "MARK-MEMORY always use tabs"); r.code != 0 {
		t.Fatalf("memory add: %s", r)
	}
	carried := func(prompt string) bool {
		ms := w.startMock("")
		r := w.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", prompt)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r)
		}
		var found bool
		for _, q := range ms.requests() {
			b, _ := json.Marshal(q.body)
			found = found || strings.Contains(string(b), "MARK-MEMORY always use tabs")
		}
		return found
	}
	if !carried("should I indent with tabs here?") {
		t.Fatal("no request carried the project's matching memory")
	}
	if carried("hi") {
		t.Fatal("an unrelated message carried the memory")
	}
}

// .mcp.json env values expand ${VAR} from hew's environment (issue 7).
func TestMCPEnvExpansion(t *testing.T) {
	w := newWorld(t)
	w.write(".mcp.json", `{"mcpServers":{"self":{"command":"`+hewBin+`","args":["mcp","serve"],"env":{"SPEC_VAR":"${SPEC_SRC}-expanded"}}}}`)
	sc := `{"turns":[{"text":"x","tool_calls":[{"name":"mcp__self__run_shell","input":{"command":"echo val=$SPEC_VAR"}}]},{"text":"done"}]}`
	r := w.hewEnv(append(w.mockEnv(sc), "SPEC_SRC=from-env"), "-p", "--mock", "--trust-project", "--allowed-tools", "mcp__self", "--output-format", "stream-json", "go")
	tr := ofType(events(t, r), "tool_result")
	if len(tr) != 1 || !strings.Contains(tr[0].str("content"), "val=from-env-expanded") {
		t.Fatalf("env expansion in .mcp.json failed\n%s", r)
	}
}

// A server that fails to start or is misconfigured is reported and left
// out; the session goes on with the others (issue 7).
func TestMCPBrokenServer(t *testing.T) {
	w := newWorld(t)
	w.write(".mcp.json", `{"mcpServers":{"broken":{"command":"/bin/false"},"nourl":{"type":"http"},
	  "self":{"command":"`+hewBin+`","args":["mcp","serve"]}}}`)
	r := w.hew("-p", "--mock", "--trust-project", "--output-format", "stream-json", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	names := toolNames(ofType(events(t, r), "init")[0])
	if !contains(names, "mcp__self__read_file") {
		t.Errorf("the working server's tools are missing: %v", names)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "mcp__broken__") || strings.HasPrefix(n, "mcp__nourl__") {
			t.Errorf("a failed server's tool is listed: %s", n)
		}
	}
	r = w.hew("-p", "--mock", "--trust-project", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "broken") || !strings.Contains(r.stderr, "nourl") {
		t.Errorf("text mode does not report the failed servers\n%s", r)
	}
}

// On equal names the project's server wins over the user's (issue 7;
// SPEC section 3 precedence).
func TestMCPProjectOverUser(t *testing.T) {
	w := newWorld(t)
	w.write(filepath.Join(w.home, "settings.json"), `{"mcpServers":{"dup":{"command":"/bin/false"}}}`)
	w.write(".mcp.json", `{"mcpServers":{"dup":{"command":"`+hewBin+`","args":["mcp","serve"]}}}`)
	r := w.hew("-p", "--mock", "--trust-project", "--output-format", "stream-json", "hi")
	if !contains(toolNames(ofType(events(t, r), "init")[0]), "mcp__dup__read_file") {
		t.Fatalf("the project's dup server (hew mcp serve) did not win over the user's\n%s", r)
	}
}
