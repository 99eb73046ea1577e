package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Claude Code's nested hooks form and hew's flat one load side by side,
// for every event.
func TestHooksBothFormats(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, "settings.json"), `{"hooks": {
  "PreToolUse": [
    {"matcher": "run_shell", "command": "flat.sh", "timeout": 5},
    {"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "a.sh", "timeout": 3}, {"type": "command", "command": "b.sh"}]}
  ],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "ups.sh"}]}],
  "Stop": [{"command": "stop.sh"}], "SubagentStop": [{"command": "sub.sh"}],
  "PreCompact": [{"matcher": "auto", "command": "pc.sh"}], "SessionStart": [{"matcher": "startup", "command": "ss.sh"}],
  "SessionEnd": [{"command": "se.sh"}], "PostToolUse": [{"command": "post.sh"}], "PostToolUseFailure": [{"command": "f.sh"}]
}}`)
	s, err := Load(Paths{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	pre := s.Hooks.PreToolUse
	if len(pre) != 3 || pre[1].Matcher != "Bash|Edit" || pre[1].Command != "a.sh" || pre[1].Timeout != 3 || pre[2].Command != "b.sh" || pre[0].Timeout != 5 {
		t.Fatalf("PreToolUse = %+v", pre)
	}
	for _, ev := range HookEvents {
		if len(s.Hooks.Event(ev)) == 0 {
			t.Errorf("%s: no hook loaded", ev)
		}
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %v", s.Warnings)
	}
}

func TestHooksFormatErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"hooks": {"Stop": [{"command": "x", "hooks": [{"command": "y"}]}]}}`, "not both"},
		{`{"hooks": {"Stop": [{"hooks": []}]}}`, `"hooks" is empty`},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "p"}]}]}}`, `type "prompt" is not supported`},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}`, `hooks.Stop[0].hooks[0]: "command" is missing`},
		{`{"hooks": {"PreToolUse": [{"matcher": "(", "command": "x"}]}}`, "matcher"},
	} {
		_, _, err := Parse([]byte(tc.body), "s.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
}

// .claude/settings*.json stand in for a missing hew layer, for permissions
// and hooks only; their other keys are Claude Code's and are skipped.
func TestClaudeSettingsFallback(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(proj, ".claude", "settings.json"), `{
  "model": "opus", "env": {"X": "1"}, "statusLine": {"type": "command", "command": "x"},
  "sandbox": {"network": {"allowUnixSockets": ["/x"]}},
  "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
  "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]}],
            "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "are you done?"}]}]}
}`)
	write(t, filepath.Join(proj, ".claude", "settings.local.json"), `{"permissions": {"deny": ["Bash(curl:*)"]}}`)
	s, err := Load(Paths{Home: home, Project: proj, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "" {
		t.Errorf("model %q taken from Claude's settings", s.Model)
	}
	if strings.Join(s.Permissions.Allow, ",") != "Bash(npm run test:*)" || strings.Join(s.Permissions.Deny, ",") != "Read(./.env),Bash(curl:*)" {
		t.Errorf("permissions %+v", s.Permissions)
	}
	if len(s.Hooks.PostToolUse) != 1 || s.Hooks.PostToolUse[0].Source != filepath.Join(".claude", "settings.json") || len(s.Hooks.Stop) != 0 {
		t.Errorf("hooks %+v", s.Hooks)
	}
	if got := strings.Join(s.Files, ","); got != filepath.Join(".claude", "settings.json")+","+filepath.Join(".claude", "settings.local.json") {
		t.Errorf("files %q", got)
	}
	w := strings.Join(s.Warnings, "\n")
	if !strings.Contains(w, "Notification") || !strings.Contains(w, `"prompt" hook of Stop`) || strings.Contains(w, "statusLine") {
		t.Errorf("warnings:\n%s", w)
	}
	// The hew file wins for its layer; .claude/settings.json is then unread.
	write(t, filepath.Join(proj, ".hew", "settings.json"), `{"permissions": {"ask": ["web_fetch"]}}`)
	s, _ = Load(Paths{Home: home, Project: proj, TrustProject: true})
	if len(s.Permissions.Allow) != 0 || len(s.Hooks.PostToolUse) != 0 || !strings.Contains(strings.Join(s.Files, ","), filepath.Join(".hew", "settings.json")) {
		t.Errorf("hew layer did not replace the claude one: %+v %v", s.Permissions, s.Files)
	}
	// Without trust, Claude's allow rules and hooks are project settings too.
	_ = writeRemove(t, filepath.Join(proj, ".hew", "settings.json"))
	s, _ = Load(Paths{Home: home, Project: proj})
	if len(s.Permissions.Allow) != 0 || len(s.Hooks.PostToolUse) != 0 || !s.Trust.Pending() {
		t.Errorf("untrusted .claude settings applied: %+v", s.Permissions)
	}
	// A syntax error names the .claude file with a true position.
	write(t, filepath.Join(proj, ".claude", "settings.json"), "{\n \"model\": \"x\",\n \"permissions\": {\"allow\": 3}\n}")
	if _, err := Load(Paths{Home: home, Project: proj}); err == nil || !strings.Contains(err.Error(), filepath.Join(".claude", "settings.json")+":3:") {
		t.Errorf("error %v", err)
	}
}

func writeRemove(t *testing.T, path string) error {
	t.Helper()
	return os.Remove(path)
}
