package hooks

import (
	"context"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
)

// UserPromptSubmit can block, so a hook that crashes, hangs or prints a
// broken answer blocks the prompt and the reason names its command.
func TestUserPromptSubmitOutcomes(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name, body     string
		block          bool
		context, inMsg string
	}{
		{"plain stdout is context", `cat >/dev/null; echo "remember the style guide"`, false, "remember the style guide", ""},
		{"json context", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}}'`, false, "ctx", ""},
		{"exit 2 blocks", `cat >/dev/null; echo "not that" >&2; exit 2`, true, "", "not that"},
		{"decision block", `cat >/dev/null; echo '{"decision":"block","reason":"policy"}'`, true, "", "policy"},
		{"continue false", `cat >/dev/null; echo '{"continue":false,"stopReason":"halt"}'`, true, "", "halt"},
		{"crash", `exit 1`, true, "", "crash.sh"},
		{"garbage json", `cat >/dev/null; echo '{"decision":'`, true, "", "invalid answer"},
		{"hang", `sleep 5`, true, "", "timed out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := script(t, dir, strings.ReplaceAll(c.name, " ", "")+".sh", c.body)
			if c.name == "crash" {
				cmd = script(t, dir, "crash.sh", c.body)
			}
			r := New(config.Hooks{UserPromptSubmit: []config.Hook{{Command: cmd, Timeout: 1}}}, dir, nil)
			out := r.UserPromptSubmit(context.Background(), "s1", "fix it")
			if out.Block != c.block || out.AdditionalContext != c.context || !strings.Contains(out.Reason, c.inMsg) {
				t.Errorf("got %+v, want block=%v context=%q reason~%q", out, c.block, c.context, c.inMsg)
			}
		})
	}
}

// A Stop hook blocks with its reason; a broken one is reported and the
// stop goes ahead. SessionStart adds context; PreCompact matches its trigger.
func TestStopSessionAndCompactHooks(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	block := script(t, dir, "block.sh", `grep -q '"stop_hook_active":false' && echo '{"decision":"block","reason":"tests fail"}'; exit 0`)
	crash := script(t, dir, "crash.sh", `exit 3`)
	r := New(config.Hooks{Stop: []config.Hook{{Command: block}}, SubagentStop: []config.Hook{{Command: crash}},
		SessionStart: []config.Hook{{Matcher: "startup", Command: script(t, dir, "ss.sh", `cat >/dev/null; echo hello-context`)}},
		PreCompact:   []config.Hook{{Matcher: "manual", Command: script(t, dir, "pc.sh", `cat >/dev/null; echo '{"systemMessage":"compacting"}'`)}},
	}, dir, nil)
	ctx := context.Background()
	if out := r.Stop(ctx, "Stop", "s", false); !out.Block || out.Reason != "tests fail" {
		t.Errorf("first stop: %+v", out)
	}
	if out := r.Stop(ctx, "Stop", "s", true); out.Block {
		t.Errorf("stop with stop_hook_active: %+v", out)
	}
	if out := r.Stop(ctx, "SubagentStop", "s", false); out.Block || !strings.Contains(out.Message, "crash.sh") {
		t.Errorf("crashing SubagentStop: %+v", out)
	}
	if out := r.SessionStart(ctx, "s", "startup"); out.AdditionalContext != "hello-context" {
		t.Errorf("SessionStart startup: %+v", out)
	}
	if out := r.SessionStart(ctx, "s", "clear"); out.AdditionalContext != "" {
		t.Errorf("SessionStart clear ran a startup-only hook: %+v", out)
	}
	if m := r.PreCompact(ctx, "s", "manual", "focus"); m != "compacting" {
		t.Errorf("PreCompact manual: %q", m)
	}
	if m := r.PreCompact(ctx, "s", "auto", ""); m != "" {
		t.Errorf("PreCompact auto ran a manual-only hook: %q", m)
	}
}
