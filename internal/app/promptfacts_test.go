package app

import (
	"strings"
	"testing"
)

// The sandbox line in the prompt follows what sandbox.Configure decided.
func TestSandboxLine(t *testing.T) {
	for _, tc := range []struct {
		confined, network bool
		warning, want     string
	}{
		{true, false, "", "network off (connections fail)"},
		{true, true, "", "network allowed"},
		{true, false, "sandbox confines writes only: this kernel's Landlock cannot block the network", "network not blocked"},
		{false, false, "sandbox off (sandbox.enabled is false in settings): shell commands run unconfined", "off (sandbox off (sandbox.enabled is false"},
	} {
		got := sandboxLine(tc.confined, tc.network, tc.warning)
		if !strings.Contains(got, tc.want) || (tc.confined != strings.HasPrefix(got, "on: ")) {
			t.Errorf("sandboxLine(%v, %v, %q) = %q, want %q", tc.confined, tc.network, tc.warning, got, tc.want)
		}
	}
}
