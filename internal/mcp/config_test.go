package mcp

import (
	"encoding/json"
	"github.com/hew-dev/hew/internal/config"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestLoadConfigPrecedenceAndSources(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {
		"shared": {"command": "project-cmd"},
		"proj": {"command": "p", "args": ["-x"]}
	}}`)
	user := Source{Scope: ScopeUser, Path: "/home/u/.hew/settings.json", Servers: map[string]json.RawMessage{
		"shared": json.RawMessage(`{"command": "user-cmd"}`),
		"mine":   json.RawMessage(`{"command": "u"}`),
	}}
	flagFile := filepath.Join(t.TempDir(), "extra.json")
	writeFile(t, flagFile, `{"mcpServers": {"remote": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}`)
	cfg := LoadConfig(ConfigOptions{Root: root, Settings: []Source{user},
		Files: []string{flagFile, `{"mcpServers": {"inline": {"url": "https://example.invalid/mcp"}}}`}})
	if len(cfg.Problems) != 0 {
		t.Fatalf("problems: %v", cfg.Problems)
	}
	got := map[string]ServerConfig{}
	var order []string
	for _, s := range cfg.Servers {
		got[s.Name] = s
		order = append(order, s.Name)
	}
	if strings.Join(order, ",") != "inline,mine,proj,remote,shared" {
		t.Fatalf("servers = %v", order)
	}
	if s := got["shared"]; s.Command != "project-cmd" || s.Scope != ScopeProject || s.Source != filepath.Join(root, ".mcp.json") {
		t.Errorf("project must win over user on equal names: %+v", s)
	}
	if s := got["mine"]; s.Command != "u" || s.Scope != ScopeUser {
		t.Errorf("user server lost: %+v", s)
	}
	if s := got["remote"]; s.Transport != "http" || s.URL != "http://127.0.0.1:9/mcp" || s.Source != flagFile {
		t.Errorf("--mcp-config server: %+v", s)
	}
	if s := got["inline"]; s.Transport != "http" {
		t.Errorf("url without type should be http: %+v", s)
	}
	if s := got["proj"]; s.Cwd != root || s.StartupTimeout != DefaultStartupTimeout || s.CallTimeout != DefaultCallTimeout {
		t.Errorf("defaults: %+v", s)
	}
}

func TestLoadConfigExpansionAndFields(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {
		"a": {"command": "${BIN_DIR}/srv", "args": ["--token=${TOKEN}", "--mode=${MODE:-fast}", "plain"],
		      "env": {"KEY": "${TOKEN}", "EMPTY_DEF": "${UNSET_VAR:-d}"}, "cwd": "sub",
		      "startupTimeout": 5, "callTimeout": "90s", "enabledTools": ["read_*"], "disabledTools": ["read_secret"]},
		"h": {"type": "http", "url": "http://127.0.0.1:${PORT}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
	}}`)
	cfg := LoadConfig(ConfigOptions{Root: root, LookupEnv: envOf(map[string]string{"BIN_DIR": "/opt", "TOKEN": "s3cret", "PORT": "8080"})})
	if len(cfg.Problems) != 0 {
		t.Fatalf("problems: %v", cfg.Problems)
	}
	a, h := cfg.Servers[0], cfg.Servers[1]
	if a.Command != "/opt/srv" || strings.Join(a.Args, " ") != "--token=s3cret --mode=fast plain" {
		t.Errorf("command/args: %q %q", a.Command, a.Args)
	}
	if a.Env["KEY"] != "s3cret" || a.Env["EMPTY_DEF"] != "d" {
		t.Errorf("env: %v", a.Env)
	}
	if a.Cwd != filepath.Join(root, "sub") {
		t.Errorf("cwd: %q", a.Cwd)
	}
	if a.StartupTimeout != 5*time.Second || a.CallTimeout != 90*time.Second {
		t.Errorf("timeouts: %v %v", a.StartupTimeout, a.CallTimeout)
	}
	if !keepTool(&a, "read_file") || keepTool(&a, "read_secret") || keepTool(&a, "write_file") {
		t.Errorf("filters wrong")
	}
	if h.URL != "http://127.0.0.1:8080/mcp" || h.Headers["Authorization"] != "Bearer s3cret" {
		t.Errorf("http: %+v", h)
	}
}

func TestLoadConfigProblemsNameFileAndServer(t *testing.T) {
	root := t.TempDir()
	mcpPath := filepath.Join(root, ".mcp.json")
	writeFile(t, mcpPath, `{"mcpServers": {
		"good": {"command": "ok"},
		"notype": {"type": "websocket", "url": "ws://x"},
		"nocmd": {"args": ["x"]},
		"nourl": {"type": "http"},
		"badtimeout": {"command": "x", "startupTimeout": -1},
		"unset": {"command": "x", "env": {"T": "${NOPE_NOT_SET}"}},
		"notobject": ["x"]
	}}`)
	cfg := LoadConfig(ConfigOptions{Root: root, LookupEnv: envOf(nil)})
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "good" {
		t.Fatalf("the good server must still load: %+v", cfg.Servers)
	}
	want := map[string]string{
		"notype": "unknown type", "nocmd": `missing "command"`, "nourl": `missing "url"`,
		"badtimeout": "startupTimeout", "unset": "NOPE_NOT_SET is not set", "notobject": "invalid definition",
	}
	if len(cfg.Problems) != len(want) {
		t.Fatalf("problems: %v", cfg.Problems)
	}
	for _, p := range cfg.Problems {
		msg := p.Error()
		if !strings.Contains(msg, mcpPath) || !strings.Contains(msg, `"`+p.Server+`"`) || !strings.Contains(msg, want[p.Server]) {
			t.Errorf("problem %q should name %s, server %q and say %q", msg, mcpPath, p.Server, want[p.Server])
		}
	}
}

func TestLoadConfigBadFileKeepsOthers(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"a\",}\n  }\n}")
	user := Source{Scope: ScopeUser, Path: "/u/settings.json", Servers: map[string]json.RawMessage{"u": json.RawMessage(`{"command":"u"}`)}}
	cfg := LoadConfig(ConfigOptions{Root: root, Settings: []Source{user}, Files: []string{filepath.Join(root, "missing.json")}})
	if len(cfg.Servers) != 1 || cfg.Servers[0].Name != "u" {
		t.Fatalf("servers: %+v", cfg.Servers)
	}
	if len(cfg.Problems) != 2 {
		t.Fatalf("want 2 problems (bad .mcp.json, missing --mcp-config), got %v", cfg.Problems)
	}
	if msg := cfg.Problems[0].Error(); !strings.Contains(msg, ".mcp.json") || !strings.Contains(msg, "line 3:") {
		t.Errorf("bad JSON problem should name the file and line: %q", msg)
	}
	if msg := cfg.Problems[1].Error(); !strings.Contains(msg, "missing.json") {
		t.Errorf("missing --mcp-config file should be named: %q", msg)
	}
}

func TestProjectOverrideThatIsInvalidIsReported(t *testing.T) {
	user := Source{Scope: ScopeUser, Path: "/u/settings.json", Servers: map[string]json.RawMessage{"x": json.RawMessage(`{"command":"u"}`)}}
	proj := Source{Scope: ScopeProject, Path: "/p/.mcp.json", Servers: map[string]json.RawMessage{"x": json.RawMessage(`{"type":"http"}`)}}
	cfg := LoadConfig(ConfigOptions{Settings: []Source{proj, user}})
	if len(cfg.Servers) != 0 || len(cfg.Problems) != 1 || cfg.Problems[0].Path != "/p/.mcp.json" {
		t.Fatalf("servers %+v problems %v", cfg.Servers, cfg.Problems)
	}
}

func TestFromSettings(t *testing.T) {
	home := t.TempDir()
	root := t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), `{"mcpServers": {"shared": {"command": "user"}, "mine": {"command": "u"}}}`)
	writeFile(t, filepath.Join(root, ".hew", "settings.local.json"), `{"mcpServers": {"loc": {"command": "l"}}}`)
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"shared": {"command": "from-mcp-json"}, "loc": {"command": "mcp-json-loc"}}}`)
	s, err := config.Load(config.Paths{Home: home, Project: root, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := LoadConfig(ConfigOptions{Root: root, Settings: FromSettings(s.MCPServers, home), NoMCPJSON: true})
	got := map[string]string{}
	for _, sc := range cfg.Servers {
		got[sc.Name] = sc.Command + "@" + sc.Scope
	}
	want := map[string]string{"shared": "from-mcp-json@project", "mine": "u@user", "loc": "l@local"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all %v, problems %v)", k, got[k], v, got, cfg.Problems)
		}
	}
}
