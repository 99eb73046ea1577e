package spec

import (
	"strings"
	"testing"
)

// Issue 15 item 1: Claude Code's flag spellings; a rule list takes several
// arguments but never the prompt, and a comma inside TOOL(...) stays.
func TestClaudeCodeFlags(t *testing.T) {
	w := newWorld(t)
	w.write("greeting.txt", "hello from claude flags\n")
	r := w.hew("-p", "--mock", "--output-format", "json", "--allowedTools", "Bash(git diff:*)", "Edit", "read greeting.txt")
	if res := jsonResult(t, r); r.code != 0 || !strings.Contains(res.str("result"), "hello from claude flags") {
		t.Fatalf("the prompt was not kept whole after --allowedTools\n%s", r)
	}
	c := w.hew("permissions", "check", "run_shell", `{"command":"rclone copy a,b"}`, "--allowedTools", "Bash(rclone copy a,b)")
	if !strings.Contains(c.stdout, `"allow"`) || !strings.Contains(c.stdout, "rule") {
		t.Errorf("a comma inside Bash(...) split the rule: %s %s", c.stdout, c.stderr)
	}
	r = w.hew("-p", "--mock", "--output-format", "stream-json", "--dangerously-skip-permissions", "--add-dir", w.home, "--system-prompt", "You are terse.", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, `"permission_mode":"bypassPermissions"`) {
		t.Errorf("--dangerously-skip-permissions / --add-dir / --system-prompt\n%s", r)
	}
	if r = w.hew("-p", "--mock", "--add-dir", "/no/such/dir", "hi"); r.code != 2 || !strings.Contains(r.stderr, "not a directory") {
		t.Errorf("--add-dir of a missing directory: %s", r)
	}
}
