package sandbox

import (
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
)

// The prompt's sandbox line and the permission engine's "sandbox active"
// follow the settings and --no-sandbox (which no mode implies).
func TestSandboxFollowsSettingsAndFlag(t *testing.T) {
	ok, _ := Available()
	for _, tc := range []struct {
		name      string
		network   string
		enabled   bool
		noSandbox bool
		line      string
		active    bool
	}{
		{"default allowlist", config.NetworkAllowlist, true, false, "network only through hew's proxy", true},
		{"network off", config.NetworkOff, true, false, "network off", true},
		{"network on", config.NetworkAll, true, false, "network not restricted", false},
		{"--no-sandbox", config.NetworkAllowlist, true, true, "off (turned off: --no-sandbox)", false},
		{"disabled in settings", config.NetworkAllowlist, false, false, "off (turned off in settings)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := config.Default()
			s.Sandbox.Network, s.Sandbox.Enabled = tc.network, tc.enabled
			sb := New(FromSettings(s, tc.noSandbox, Policy{Root: t.TempDir(), Home: "-"}))
			line := sb.Describe()
			if !ok && tc.enabled && !tc.noSandbox {
				if !strings.HasPrefix(line, "off (") || sb.ConfinesNetwork() {
					t.Errorf("no Landlock here, but %q / active %v", line, sb.ConfinesNetwork())
				}
				return
			}
			if !strings.Contains(line, tc.line) || sb.ConfinesNetwork() != tc.active {
				t.Errorf("line %q (want %q), active %v (want %v)", line, tc.line, sb.ConfinesNetwork(), tc.active)
			}
			if tc.noSandbox && !strings.Contains(sb.StartupWarning(), "--no-sandbox") {
				t.Errorf("warning %q", sb.StartupWarning())
			}
		})
	}
}
