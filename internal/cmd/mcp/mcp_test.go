package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/mcp"
)

func TestAddRemoveProjectFile(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	deps := Options{Root: root, Home: home}
	code, out, errs := cli(t, deps, "add", "--scope", "project", "fs", "-e", "TOKEN=${TOKEN}", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", ".")
	if code != 0 {
		t.Fatalf("add: %d %s", code, errs)
	}
	mcpPath := filepath.Join(root, ".mcp.json")
	if !strings.Contains(out, mcpPath) {
		t.Errorf("add should say where it wrote: %q", out)
	}
	got := readJSON(t, mcpPath)["mcpServers"].(map[string]any)["fs"].(map[string]any)
	if got["command"] != "npx" || len(got["args"].([]any)) != 3 || got["args"].([]any)[0] != "-y" ||
		got["env"].(map[string]any)["TOKEN"] != "${TOKEN}" {
		t.Errorf("written server = %v", got)
	}
	cfg := mcp.LoadConfig(mcp.ConfigOptions{Root: root, LookupEnv: func(k string) (string, bool) { return map[string]string{"TOKEN": "t"}[k], k == "TOKEN" }})
	if len(cfg.Servers) != 1 || cfg.Servers[0].Env["TOKEN"] != "t" {
		t.Errorf("added server must load back: %+v %v", cfg.Servers, cfg.Problems)
	}

	if code, _, errs := cli(t, deps, "add", "-s", "project", "fs", "other"); code != 1 || !strings.Contains(errs, "already exists") {
		t.Errorf("duplicate add: %d %q", code, errs)
	}
	if code, _, _ := cli(t, deps, "add", "--scope=project", "--transport", "http", "-H", "Authorization: Bearer x", "web", "http://127.0.0.1:1/mcp"); code != 0 {
		t.Fatal("add http failed")
	}
	web := readJSON(t, mcpPath)["mcpServers"].(map[string]any)["web"].(map[string]any)
	if web["type"] != "http" || web["url"] != "http://127.0.0.1:1/mcp" || web["headers"].(map[string]any)["Authorization"] != "Bearer x" {
		t.Errorf("http server = %v", web)
	}

	if code, out, errs := cli(t, deps, "remove", "fs"); code != 0 || !strings.Contains(out, "Removed") {
		t.Fatalf("remove: %d %q %q", code, out, errs)
	}
	servers := readJSON(t, mcpPath)["mcpServers"].(map[string]any)
	if _, ok := servers["fs"]; ok || servers["web"] == nil {
		t.Errorf("after remove: %v", servers)
	}
	if code, _, errs := cli(t, deps, "remove", "fs"); code != 1 || !strings.Contains(errs, `no server "fs"`) {
		t.Errorf("removing a missing server: %d %q", code, errs)
	}
}

func TestAddLocalScopePreservesOtherContent(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	local := filepath.Join(root, ".hew", "settings.local.json")
	writeFile(t, local, `{"model": "m1", "permissions": {"allow": ["run_shell(go test*)"]}, "mcpServers": {"old": {"command": "o"}}, "zeta": 1}`)
	if err := os.Chmod(local, 0o600); err != nil {
		t.Fatal(err)
	}
	deps := Options{Root: root, Home: home}
	if code, _, errs := cli(t, deps, "add", "--scope", "local", "new", "--", "srv", "--flag"); code != 0 {
		t.Fatalf("add: %s", errs)
	}
	data, _ := os.ReadFile(local)
	s := string(data)
	for _, want := range []string{`"model": "m1"`, `"run_shell(go test*)"`, `"old"`, `"zeta": 1`, `"new"`, `"--flag"`} {
		if !strings.Contains(s, want) {
			t.Errorf("local settings lost %s:\n%s", want, s)
		}
	}
	if strings.Index(s, `"model"`) > strings.Index(s, `"permissions"`) || strings.Index(s, `"mcpServers"`) > strings.Index(s, `"zeta"`) ||
		strings.Index(s, `"old"`) > strings.Index(s, `"new"`) {
		t.Errorf("key order changed:\n%s", s)
	}
	if st, _ := os.Stat(local); st.Mode().Perm() != 0o600 {
		t.Errorf("file mode changed to %v", st.Mode().Perm())
	}
	if code, _, _ := cli(t, deps, "add", "--scope", "user", "new", "usrv"); code != 0 {
		t.Fatal("user add failed")
	}
	if readJSON(t, filepath.Join(home, "settings.json"))["mcpServers"].(map[string]any)["new"] == nil {
		t.Errorf("user scope not written")
	}
	code, _, errs := cli(t, deps, "remove", "new")
	if code != 2 || !strings.Contains(errs, "--scope") {
		t.Errorf("ambiguous remove should ask for --scope: %d %q", code, errs)
	}
	if code, _, _ := cli(t, deps, "remove", "--scope", "local", "new"); code != 0 {
		t.Fatal("scoped remove failed")
	}
	if _, ok := readJSON(t, local)["mcpServers"].(map[string]any)["new"]; ok {
		t.Errorf("not removed from local")
	}
}

func TestCLIUsageErrors(t *testing.T) {
	root := t.TempDir()
	deps := Options{Root: root, Home: t.TempDir()}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bogus"}, 2, "unknown command"},
		{[]string{"add", "onlyname"}, 2, "need NAME"},
		{[]string{"add", "bad name", "cmd"}, 2, "may only use"},
		{[]string{"add", "--transport", "http", "w", "ftp://x"}, 2, "http(s) URL"},
		{[]string{"add", "--scope", "galaxy", "w", "cmd"}, 2, "unknown scope"},
		{[]string{"add", "-e", "NOEQUALS", "w", "cmd"}, 2, "KEY=VALUE"},
		{[]string{"remove"}, 2, "exactly one NAME"},
	}
	for _, tc := range tests {
		code, _, errs := cli(t, deps, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: code %d stderr %q, want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	if code, _, errs := cli(t, deps, "add", "-s", "project", "x", "y"); code != 0 {
		t.Fatal(errs)
	}
	writeFile(t, filepath.Join(root, ".mcp.json"), "{broken")
	if code, _, errs := cli(t, deps, "add", "-s", "project", "z", "y"); code != 1 || !strings.Contains(errs, ".mcp.json") {
		t.Errorf("a broken file must not be overwritten: %d %q", code, errs)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".mcp.json")); string(data) != "{broken" {
		t.Errorf("broken file was changed: %q", data)
	}
}

func TestListShowsStateAndToolCount(t *testing.T) {
	t.Parallel()
	root, home := t.TempDir(), t.TempDir()
	doc := mustJSON(map[string]any{"mcpServers": map[string]any{
		"helper": helperServer(t, ""),
		"gone":   map[string]any{"command": "/nonexistent/hew-missing"},
		"bad":    map[string]any{"type": "http"},
	}})
	writeFile(t, filepath.Join(root, ".mcp.json"), doc)
	// The user trusts the project, so its servers start.
	writeFile(t, filepath.Join(home, "settings.json"), `{"trustedDirectories": [`+jsonQuote(root)+`], "mcpServers": {"user-one": {"command": "/nonexistent/u"}}}`)
	deps := Options{Root: root, Home: home}
	code, out, errs := cli(t, deps, "list")
	if code != 0 {
		t.Fatalf("list: %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("list output:\n%s", out)
	}
	row := func(name string) []string {
		for _, l := range lines {
			if f := strings.Fields(l); f[0] == name {
				return f
			}
		}
		t.Fatalf("no row for %s:\n%s", name, out)
		return nil
	}
	if f := row("helper"); f[1] != "connected" || f[2] != "2" || f[3] != ".mcp.json" {
		t.Errorf("helper row: %v", f)
	}
	if f := row("gone"); f[1] != "failed" || !strings.Contains(strings.Join(f, " "), "error:") {
		t.Errorf("gone row: %v", f)
	}
	if f := row("bad"); f[1] != "invalid" {
		t.Errorf("bad row: %v", f)
	}
	if f := row("user-one"); f[1] != "failed" || !strings.HasSuffix(f[3], "settings.json") {
		t.Errorf("user row: %v", f)
	}

	code, out, _ = cli(t, deps, "list", "--json")
	var st []mcp.ServerStatus
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || len(st) != 4 || st[2].Name != "helper" || st[2].Tools != 2 {
		t.Errorf("list --json: %d %s", code, out)
	}

	empty := Options{Root: t.TempDir(), Home: t.TempDir()}
	if code, out, _ := cli(t, empty, "list"); code != 0 || !strings.Contains(out, "No MCP servers configured") {
		t.Errorf("empty list: %d %q", code, out)
	}
}

func TestSubcommandHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"list", "--help"}, {"add", "-h"}, {"serve", "--help"}, {"remove", "--help"}} {
		code, out, _ := cli(t, Options{}, args...)
		if code != 0 || !strings.Contains(out, "hew mcp serve") {
			t.Errorf("%v: code %d out %q", args, code, out)
		}
	}
}

func TestAddKeepsServerHelpFlag(t *testing.T) {
	root := t.TempDir()
	if code, _, errs := cli(t, Options{Root: root}, "add", "srv", "--", "tool", "--help"); code != 0 {
		t.Fatal(errs)
	}
	args := readJSON(t, filepath.Join(root, ".hew", "settings.local.json"))["mcpServers"].(map[string]any)["srv"].(map[string]any)["args"].([]any)
	if len(args) != 1 || args[0] != "--help" {
		t.Errorf("args = %v", args)
	}
}

func TestServeWithoutExecutor(t *testing.T) {
	if code, _, errs := cli(t, Options{}, "serve"); code != 1 || !strings.Contains(errs, "executor") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
}

// A project server defined in .hew/settings.json (not .mcp.json) is what
// get shows and tells how to remove; that command must work, keep the rest
// of the settings file, and a name defined in both project files asks for
// nothing it cannot do.
func TestRemoveFromProjectSettings(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	deps := Options{Root: root, Home: home}
	settings := filepath.Join(root, ".hew", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"model": "m", "mcpServers": {"db": {"command": "db-server"}}}`), 0o644)
	code, out, _ := cli(t, deps, "get", "db")
	if code != 0 || !strings.Contains(out, "Remove it with: hew mcp remove --scope project db") {
		t.Fatalf("get: %d %q", code, out)
	}
	if code, out, errs := cli(t, deps, "remove", "--scope", "project", "db"); code != 0 || !strings.Contains(out, settings) {
		t.Fatalf("remove --scope project: %d %q %q", code, out, errs)
	}
	left := readJSON(t, settings)
	if left["model"] != "m" || len(left["mcpServers"].(map[string]any)) != 0 {
		t.Errorf("settings after remove: %v", left)
	}
	if code, _, _ := cli(t, deps, "get", "db"); code == 0 {
		t.Error("db still found after remove")
	}
}
