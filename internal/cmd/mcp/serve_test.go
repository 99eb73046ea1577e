package mcp

import (
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/permission"
)

// serve takes a session's permission flags (both spellings) and
// --trust-project, and nothing else.
func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args    string
		allowed string
		mode    permission.Mode
		trust   bool
		err     string
	}{
		{"", "", "", false, ""},
		{"--accept-edits --allowedTools Edit,Read --trust-project", "Edit,Read", permission.ModeAcceptEdits, true, ""},
		{"--permission-mode plan --allowed-tools Bash(git:*)", "Bash(git:*)", permission.ModePlan, false, ""},
		{"--dangerously-skip-permissions", "", permission.ModeBypass, false, ""},
		{"--model x", "", "", false, "hew mcp serve: unknown flag: --model (it takes --permission-mode"},
		{"extra", "", "", false, `hew mcp serve takes no arguments, got "extra"`},
		{"--plan --yolo", "", "", false, "hew mcp serve: give only one permission mode"},
	} {
		f, trust, err := ServeFlags(strings.Fields(tc.args))
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		mode, _ := f.Modes.Pick()
		if err != nil || strings.Join(f.Allowed, ",") != tc.allowed || mode != tc.mode || trust != tc.trust {
			t.Errorf("%q: %+v mode %q trust %v %v", tc.args, f, mode, trust, err)
		}
	}
}
