package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/mcp"
)

// Claude Code's `claude mcp add` command lines, as people type them.
func TestAddParsesLikeClaudeCode(t *testing.T) {
	tests := []struct {
		args  []string
		scope string
		want  string // the JSON written
	}{
		{[]string{"gh", "-e", "TOKEN=abc", "--", "npx", "-y", "server-github"}, "local",
			`{"command":"npx","args":["-y","server-github"],"env":{"TOKEN":"abc"}}`},
		{[]string{"-e", "A=1", "--env", "B=x=y", "gh", "--scope", "project", "--", "node", "s.js", "-e", "notours"}, "project",
			`{"command":"node","args":["s.js","-e","notours"],"env":{"A":"1","B":"x=y"}}`},
		{[]string{"--transport", "http", "sentry", "https://mcp.sentry.dev/mcp", "--header", "Authorization: Bearer t"}, "local",
			`{"type":"http","url":"https://mcp.sentry.dev/mcp","headers":{"Authorization":"Bearer t"}}`},
		{[]string{"-t", "sse", "-s", "user", "-H", "X-Key:v", "s", "https://x.example/sse"}, "user",
			`{"type":"sse","url":"https://x.example/sse","headers":{"X-Key":"v"}}`},
		{[]string{"plain", "srv"}, "local", `{"command":"srv"}`},
	}
	for _, tc := range tests {
		root, home := t.TempDir(), t.TempDir()
		deps := Options{Root: root, Home: home}
		code, out, errs := cli(t, deps, append([]string{"add"}, tc.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errs)
			continue
		}
		path, _ := mcp.ScopeFile(tc.scope, deps.Root, deps.Home)
		if !strings.Contains(out, path) {
			t.Errorf("%v: output %q does not name %s", tc.args, out, path)
		}
		var doc struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		data, _ := os.ReadFile(path)
		if err := json.Unmarshal(data, &doc); err != nil || len(doc.MCPServers) != 1 {
			t.Errorf("%v: %s: %v %s", tc.args, path, err, data)
			continue
		}
		for _, raw := range doc.MCPServers {
			var c bytes.Buffer
			_ = json.Compact(&c, raw)
			if c.String() != tc.want {
				t.Errorf("%v: wrote %s, want %s", tc.args, raw, tc.want)
			}
		}
		// Round trip: get shows it, remove takes it away.
		name := ""
		for n := range doc.MCPServers {
			name = n
		}
		if code, out, _ := cli(t, deps, "get", name); code != 0 || !strings.Contains(out, "scope:   "+tc.scope) {
			t.Errorf("get %s: %d %q", name, code, out)
		}
		if code, _, errs := cli(t, deps, "remove", name); code != 0 {
			t.Errorf("remove %s: %s", name, errs)
		}
		if code, _, _ := cli(t, deps, "get", name); code != 1 {
			t.Errorf("get after remove: %d", code)
		}
	}
}

func TestAddBadInputWritesNothing(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"add"}, "need NAME"},
		{[]string{"add", "n"}, "need NAME"},
		{[]string{"add", "n", "-e", "K=V"}, "need NAME"},
		{[]string{"add", "n", "--bogus", "--", "x"}, "unknown flag: --bogus"},
		{[]string{"add", "n", "-e", "1K=V", "--", "x"}, "not KEY=VALUE"},
		{[]string{"add", "n", "-e", "KV", "--", "x"}, "not KEY=VALUE"},
		{[]string{"add", "n", "https://x.example/mcp"}, "add --transport http"},
		{[]string{"add", "-t", "http", "n", "--", "npx", "srv"}, "one http(s) URL"},
		{[]string{"add", "-t", "http", "n", "https://x", "-e", "K=V"}, "-e is for stdio"},
		{[]string{"add", "n", "-H", "A: b", "--", "x"}, "--header is for http"},
		{[]string{"add", "-t", "http", "-H", "nocolon", "n", "https://x"}, "not \"Name: value\""},
		{[]string{"add", "-t", "ftp", "n", "x"}, "unknown transport"},
		{[]string{"add", "-s", "galaxy", "n", "--", "x"}, "unknown scope"},
		{[]string{"add", "n", "a", "--", "b"}, "not both"},
		{[]string{"add", "bad/name", "--", "x"}, "may only use"},
		{[]string{"add-json", "n"}, "need NAME and a JSON"},
		{[]string{"add-json", "n", "[1]"}, "not a JSON object"},
		{[]string{"add-json", "n", `{"command":`}, "not a JSON object"},
		{[]string{"add-json", "n", `{"type":"http"}`}, "missing \"url\""},
		{[]string{"add-json", "n", `{"args":["x"]}`}, "missing \"command\""},
		{[]string{"get"}, "exactly one NAME"},
	}
	for _, tc := range tests {
		root, home := t.TempDir(), t.TempDir()
		code, _, errs := cli(t, Options{Root: root, Home: home}, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
		for _, p := range []string{filepath.Join(root, ".mcp.json"), filepath.Join(root, ".hew"), filepath.Join(home, "settings.json")} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%v: %s was written", tc.args, p)
			}
		}
	}
}

func TestAddJSONAndFromClaude(t *testing.T) {
	root, home, user := t.TempDir(), t.TempDir(), t.TempDir()
	deps := Options{Root: root, Home: home, UserHome: user}
	if code, _, errs := cli(t, deps, "add-json", "-s", "project", "w", ` {"type": "http", "url": "https://a.example/mcp"}`); code != 0 {
		t.Fatal(errs)
	}
	if got := readJSON(t, filepath.Join(root, ".mcp.json"))["mcpServers"].(map[string]any)["w"].(map[string]any); got["url"] != "https://a.example/mcp" {
		t.Errorf("add-json wrote %v", got)
	}
	writeFile(t, filepath.Join(user, ".claude.json"), `{"mcpServers": {"global": {"command": "g"}},
	  "projects": {`+jsonQuote(root)+`: {"mcpServers": {"db": {"command": "pg-mcp", "args": ["--ro"]}, "w": {"command": "dup"}}},
	               "/elsewhere": {"mcpServers": {"other": {"command": "o"}}}}}`)
	code, out, errs := cli(t, deps, "add", "--from-claude", "--scope", "project")
	if code != 1 || !strings.Contains(out, `"db"`) || !strings.Contains(errs, `"w" already exists`) {
		t.Fatalf("from-claude: %d %q %q", code, out, errs)
	}
	servers := readJSON(t, filepath.Join(root, ".mcp.json"))["mcpServers"].(map[string]any)
	if servers["db"] == nil || servers["other"] != nil || servers["global"] != nil || servers["w"].(map[string]any)["url"] == nil {
		t.Errorf("imported %v", servers)
	}
	if code, _, errs := cli(t, deps, "add", "--from-claude", "extra"); code != 2 || !strings.Contains(errs, "only --scope") {
		t.Errorf("from-claude with a name: %d %q", code, errs)
	}
}

func TestAddKeepTrustWrapsTheWrite(t *testing.T) {
	root := t.TempDir()
	called := 0
	deps := Options{Root: root, Home: t.TempDir(), KeepTrust: func(w func() error) error { called++; return w() }}
	if code, _, errs := cli(t, deps, "add", "x", "--", "y"); code != 0 || called != 1 {
		t.Fatalf("%d %q called %d", code, errs, called)
	}
}
