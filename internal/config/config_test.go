package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadMergesLayers(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "settings.json"), `{
  "model": "user-model", "provider": "anthropic",
  "permissions": {"allow": ["read_file"], "deny": ["run_shell(rm -rf*)"], "additionalDirectories": ["/u"]},
  "hooks": {"PreToolUse": [{"matcher": "run_shell", "command": "echo user"}]},
  "mcpServers": {"shared": {"command": "user-cmd"}, "mine": {"command": "u"}},
  "sandbox": {"enabled": true, "network": true, "allowedDomains": ["example.com"], "deniedDomains": ["bad.example"]},
  "compactThreshold": 0.7
}`)
	write(t, filepath.Join(proj, ".hew", "settings.json"), `{
  "model": "project-model",
  "permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(git log:*)"], "additionalDirectories": ["/p"]},
  "hooks": {"PostToolUse": [{"command": "echo post", "timeout": 5}]},
  "mcpServers": {"shared": {"command": "project-cmd"}},
  "sandbox": {"network": false, "allowedDomains": ["*.corp.example"]},
  "autoCompact": false,
  "bell": false
}`)
	write(t, filepath.Join(proj, ".hew", "settings.local.json"), `{
  "model": "local-model",
  "permissions": {"ask": ["web_fetch"]},
  "contextWindow": 64000
}`)
	s, err := Load(Paths{Home: home, Project: proj, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"model (local wins)", s.Model, "local-model"},
		{"provider (user kept)", s.Provider, "anthropic"},
		{"mode", s.Permissions.DefaultMode, "acceptEdits"},
		{"allow concatenated", strings.Join(s.Permissions.Allow, "|"), "read_file|Bash(git log:*)"},
		{"deny", strings.Join(s.Permissions.Deny, "|"), "run_shell(rm -rf*)"},
		{"ask", strings.Join(s.Permissions.Ask, "|"), "web_fetch"},
		{"dirs concatenated", strings.Join(s.Permissions.AdditionalDirectories, "|"), "/u|/p"},
		{"mcp project over user", string(s.MCPServers["shared"].Raw), `{"command": "project-cmd"}`},
		{"mcp source", s.MCPServers["shared"].Source, filepath.Join(".hew", "settings.json")},
		{"mcp user kept", s.MCPServers["mine"].Source, filepath.Join(home, "settings.json")},
		{"sandbox enabled", s.Sandbox.Enabled, true},
		{"sandbox network (project wins)", s.Sandbox.Network, NetworkOff},
		{"sandbox domains concatenated", strings.Join(s.Sandbox.AllowedDomains, "|"), "example.com|*.corp.example"},
		{"sandbox denied", strings.Join(s.Sandbox.DeniedDomains, "|"), "bad.example"},
		{"autoCompact", s.AutoCompact, false},
		{"bell", s.Bell, false},
		{"threshold", s.CompactThreshold, 0.7},
		{"window", s.ContextWindow, 64000},
		{"pre hooks", len(s.Hooks.PreToolUse), 1},
		{"post hook timeout", s.Hooks.PostToolUse[0].Timeout, 5.0},
		{"files", len(s.Files), 3},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	rules := s.Rules()
	if len(rules) != 4 {
		t.Fatalf("rules: %+v", rules)
	}
	for _, r := range rules {
		if r.Rule == "run_shell(rm -rf*)" && (r.Kind != "deny" || r.Source != filepath.Join(home, "settings.json")) {
			t.Errorf("deny rule source: %+v", r)
		}
		if r.Rule == "web_fetch" && r.Source != filepath.Join(".hew", "settings.local.json") {
			t.Errorf("ask rule source: %+v", r)
		}
	}
}

func TestLoadDefaultsWithoutFiles(t *testing.T) {
	s, err := Load(Paths{Home: t.TempDir(), Project: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !s.AutoCompact || s.CompactThreshold != 0.85 || !s.Sandbox.Enabled || s.Sandbox.Network != NetworkAllowlist || s.Permissions.DefaultMode != "default" {
		t.Errorf("defaults wrong: %+v", s)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"syntax", "{\n  \"model\": \"x\",\n  \"provider\" \"y\"\n}", []string{".hew/settings.json:3:", "invalid JSON"}},
		{"trailing comma", "{\"model\": \"x\",}", []string{"1:", "invalid JSON"}},
		{"wrong type list", "{\n \"permissions\": {\"allow\": \"read_file\"}\n}", []string{":2:", "permissions.allow", "array of strings", "string"}},
		{"wrong type bool", `{"sandbox": {"enabled": "yes"}}`, []string{"sandbox.enabled", "true or false"}},
		{"bad network", "{\"sandbox\": {\n \"network\": \"some\"}}", []string{":2:2", "sandbox.network", `"allowlist"`, `"some"`}},
		{"bad domain", `{"sandbox": {"allowedDomains": ["ex ample.com"]}}`, []string{"sandbox.allowedDomains", "ex ample.com"}},
		{"bad wildcard", `{"sandbox": {"deniedDomains": ["a.*.com"]}}`, []string{"sandbox.deniedDomains", "leading"}},
		{"wrong type number", `{"contextWindow": "big"}`, []string{"contextWindow", "a number"}},
		{"bad mode", "{\"permissions\": {\n \"defaultMode\": \"yolo\"}}", []string{":2:2", "defaultMode", "yolo"}},
		{"hook no command", `{"hooks": {"PreToolUse": [{"matcher": "x"}]}}`, []string{"PreToolUse[0]", "command"}},
		{"hook bad regex", `{"hooks": {"PreToolUse": [{"matcher": "(", "command": "x"}]}}`, []string{"matcher"}},
		{"threshold", `{"compactThreshold": 1.5}`, []string{"compactThreshold"}},
		{"not object", `[1,2]`, []string{"settings"}},
		{"mcp not object", `{"mcpServers": {"a": 3}}`, []string{"mcpServers.a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			proj := t.TempDir()
			write(t, filepath.Join(proj, ".hew", "settings.json"), c.body)
			_, err := Load(Paths{Project: proj})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), filepath.FromSlash(w)) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), filepath.Join(".hew", "settings.json")) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestUnknownKeysWarn(t *testing.T) {
	proj := t.TempDir()
	write(t, filepath.Join(proj, ".hew", "settings.json"), "{\n  \"modle\": \"x\",\n  \"permissions\": {\"alow\": []},\n  \"hooks\": {\"PreToolUse\": [{\"command\": \"x\", \"matchr\": \"y\"}]}\n}")
	s, err := Load(Paths{Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(s.Warnings, "\n")
	for _, w := range []string{`settings.json:2:3: unknown key "modle"`, `"alow" in permissions`, `"matchr" in hooks.PreToolUse`} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", joined, w)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"model": "x"}`, `{"permissions": {"allow": ["a"], "deny": ["b(c)"]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "*", "command": "x", "timeout": 3}]}}`,
		`{"mcpServers": {"a": {"command": "b"}}}`, `{"sandbox": {"enabled": false}}`, `[`, `null`, `"x"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, warns, err := Parse(data, "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if file == nil {
			t.Fatal("nil file without error")
		}
		for _, w := range warns {
			if !strings.HasPrefix(w, "f.json:") {
				t.Fatalf("warning does not name the file: %q", w)
			}
		}
		s := Default()
		s.merge(file, "f.json", nil)
	})
}

func TestCheckpointSettings(t *testing.T) {
	f, warns, err := Parse([]byte(`{"checkpoints": {"enabled": false, "maxAgeDays": 7, "maxSizeMB": 50, "other": 1}}`), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `"other" in checkpoints`) {
		t.Fatalf("warnings %v", warns)
	}
	s := Default()
	if !s.Checkpoints.Enabled || s.Checkpoints.MaxAgeDays != 30 {
		t.Fatalf("defaults %+v", s.Checkpoints)
	}
	s.merge(f, "s.json", nil)
	if s.Checkpoints != (Checkpoints{Enabled: false, MaxAgeDays: 7, MaxSizeMB: 50}) {
		t.Fatalf("applied %+v", s.Checkpoints)
	}
	if _, _, err := Parse([]byte(`{"checkpoints": {"maxSizeMB": 0}}`), "s.json"); err == nil || !strings.Contains(err.Error(), "maxSizeMB") {
		t.Fatalf("maxSizeMB 0: %v", err)
	}
}
