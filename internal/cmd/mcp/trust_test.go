package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/mcp"
)

// trustNow records the project's current settings as trusted, as a yes at
// the interactive prompt does.
func trustNow(t *testing.T, root, home string) {
	t.Helper()
	s, err := config.Load(config.Paths{Home: home, Project: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := config.RecordTrust(home, s.Trust); err != nil {
		t.Fatal(err)
	}
}

func row(out, name string) []string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			return f
		}
	}
	return nil
}

// A cloned repository's servers neither start to be listed nor vanish
// silently: list and get say they are withheld and what would start them.
func TestListAndGetSayWhenTheProjectWithholdsAServer(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	starts := filepath.Join(t.TempDir(), "starts")
	writeFile(t, filepath.Join(root, ".mcp.json"), mustJSON(map[string]any{"mcpServers": map[string]any{"proj": helperServer(t, starts)}}))
	writeFile(t, filepath.Join(root, ".hew", "settings.local.json"), `{"mcpServers": {"mine": {"type": "http", "url": "https://x.example/mcp"}}}`)
	writeFile(t, filepath.Join(home, "settings.json"), `{"mcpServers": {"everywhere": {"command": "/nonexistent/u"}}}`)
	o := Options{Root: root, Home: home}

	for _, verb := range []string{"list", "ls"} {
		code, out, errs := cli(t, o, verb)
		if code != 0 {
			t.Fatalf("%s: %d %s", verb, code, errs)
		}
		if f := row(out, "proj"); len(f) < 5 || f[1] != "withheld" || f[2] != "0" || f[3] != ".mcp.json" ||
			!strings.Contains(out, "project not trusted (run hew here interactively to review and trust them, or pass --trust-project)") {
			t.Errorf("%s: proj row %v in\n%s", verb, f, out)
		}
		if f := row(out, "mine"); len(f) < 2 || f[1] != "withheld" {
			t.Errorf("%s: a local server is the project's too: %v", verb, f)
		}
		if f := row(out, "everywhere"); len(f) < 2 || f[1] != "failed" {
			t.Errorf("%s: a user server is never withheld: %v", verb, f)
		}
	}
	if _, err := os.Stat(starts); err == nil {
		t.Fatal("listing an untrusted project started its server")
	}
	_, out, _ := cli(t, o, "list", "--json")
	var st []mcp.ServerStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	var proj *mcp.ServerStatus
	for i := range st {
		if st[i].Name == "proj" {
			proj = &st[i]
		}
	}
	if proj == nil || proj.State != "withheld" || proj.Scope != "project" || proj.Transport != "stdio" || !strings.Contains(proj.Error, "not trusted") {
		t.Errorf("list --json: %+v", proj)
	}

	code, out, _ := cli(t, o, "get", "proj")
	if code != 0 || !strings.Contains(out, "  status:  withheld: project not trusted (run hew here") || !strings.Contains(out, "  type:    stdio") {
		t.Errorf("get proj: %d\n%s", code, out)
	}
	_, out, _ = cli(t, o, "get", "--json", "mine")
	var doc map[string]any
	if json.Unmarshal([]byte(out), &doc) != nil || !strings.Contains(doc["withheld"].(string), "not trusted") {
		t.Errorf("get --json mine: %s", out)
	}
	if _, out, _ := cli(t, o, "get", "everywhere"); strings.Contains(out, "withheld") {
		t.Errorf("a user server is not withheld:\n%s", out)
	}

	trustNow(t, root, home)
	code, out, errs := cli(t, o, "list")
	if f := row(out, "proj"); code != 0 || len(f) < 3 || f[1] != "connected" || f[2] != "2" || strings.Contains(out, "withheld") {
		t.Errorf("trusted list: %d %q\n%s", code, errs, out)
	}
	if _, err := os.Stat(starts); err != nil {
		t.Errorf("a trusted project's server should have started: %v", err)
	}
	if _, out, _ := cli(t, o, "get", "proj"); strings.Contains(out, "status:") {
		t.Errorf("trusted get:\n%s", out)
	}
	_, out, _ = cli(t, o, "get", "--json", "proj")
	doc = nil
	if json.Unmarshal([]byte(out), &doc) != nil || doc["withheld"] != nil {
		t.Errorf("trusted get --json: %s", out)
	}

	// Changing the project's servers takes the trust back until asked again.
	writeFile(t, filepath.Join(root, ".hew", "settings.local.json"), `{"mcpServers": {"mine": {"type": "http", "url": "https://y.example/mcp"}}}`)
	if _, out, _ := cli(t, o, "get", "mine"); !strings.Contains(out, "status:  withheld: project settings changed since trusted") {
		t.Errorf("changed get:\n%s", out)
	}
}

// get shows the definition a session would use: .mcp.json overrides the
// project's .hew/settings.json, and the local file overrides both.
func TestGetShowsTheDefinitionThatWins(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	o := Options{Root: root, Home: home}
	writeFile(t, filepath.Join(root, ".hew", "settings.json"), `{"mcpServers": {"s": {"command": "from-settings"}}}`)
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"s": {"command": "from-mcp-json"}}}`)
	cfg := mcp.LoadConfig(mcp.ConfigOptions{Root: root, Settings: []mcp.Source{mustRead(t, filepath.Join(root, ".hew", "settings.json"), mcp.ScopeProject)}})
	if len(cfg.Servers) != 1 || cfg.Servers[0].Command != "from-mcp-json" {
		t.Fatalf("a session uses %+v", cfg.Servers)
	}
	if _, out, _ := cli(t, o, "get", "s"); !strings.Contains(out, "command: from-mcp-json") || !strings.Contains(out, ".mcp.json)") {
		t.Errorf("get:\n%s", out)
	}
	writeFile(t, filepath.Join(root, ".hew", "settings.local.json"), `{"mcpServers": {"s": {"command": "from-local"}}}`)
	if _, out, _ := cli(t, o, "get", "s"); !strings.Contains(out, "command: from-local") || !strings.Contains(out, "scope:   local") {
		t.Errorf("get:\n%s", out)
	}
}

func mustRead(t *testing.T, path, scope string) mcp.Source {
	t.Helper()
	src, err := mcp.ReadServers(path, scope)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
