package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/testenv"
)

func needSh(t *testing.T) {
	t.Helper()
	testenv.Tool(t, "sh")
}

// script writes an executable shell script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func payload(tool, input string) agent.HookPayload {
	return agent.HookPayload{Tool: tool, Input: json.RawMessage(input), SessionID: "s1", Cwd: "/proj"}
}

func TestPreToolUseAnswers(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	cases := []struct {
		name, body string
		check      func(t *testing.T, o agent.HookOutcome)
	}{
		{"silent success changes nothing", "cat >/dev/null; exit 0", func(t *testing.T, o agent.HookOutcome) {
			if o.Block || o.Permission != "" || o.Stop || len(o.UpdatedInput) > 0 {
				t.Errorf("got %+v", o)
			}
		}},
		{"decision block", `cat >/dev/null; echo '{"decision":"block","reason":"no pushes on Fridays"}'`, func(t *testing.T, o agent.HookOutcome) {
			if !o.Block || o.Reason != "no pushes on Fridays" {
				t.Errorf("got %+v", o)
			}
		}},
		{"exit 2 uses stderr", `cat >/dev/null; echo "rm is forbidden here" >&2; exit 2`, func(t *testing.T, o agent.HookOutcome) {
			if !o.Block || o.Reason != "rm is forbidden here" {
				t.Errorf("got %+v", o)
			}
		}},
		{"hookSpecificOutput permission", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"trusted script"}}'`, func(t *testing.T, o agent.HookOutcome) {
			if o.Block || o.Permission != "allow" || o.Reason != "trusted script" {
				t.Errorf("got %+v", o)
			}
		}},
		{"simple permission", `cat >/dev/null; echo '{"permissionDecision":"deny","permissionDecisionReason":"not on main"}'`, func(t *testing.T, o agent.HookOutcome) {
			if o.Permission != "deny" || o.Reason != "not on main" {
				t.Errorf("got %+v", o)
			}
		}},
		{"updated input, context, message", `cat >/dev/null; echo '{"hookSpecificOutput":{"updatedInput":{"command":"ls -la"},"additionalContext":"ran in CI"},"systemMessage":"rewritten"}'`, func(t *testing.T, o agent.HookOutcome) {
			if string(o.UpdatedInput) != `{"command":"ls -la"}` || o.AdditionalContext != "ran in CI" || o.Message != "rewritten" {
				t.Errorf("got %+v", o)
			}
		}},
		{"continue false stops the turn", `cat >/dev/null; echo '{"continue":false,"stopReason":"budget reached"}'`, func(t *testing.T, o agent.HookOutcome) {
			if !o.Stop || o.Reason != "budget reached" || o.Block {
				t.Errorf("got %+v", o)
			}
		}},
		{"garbage fails closed", `cat >/dev/null; echo 'hello there'`, func(t *testing.T, o agent.HookOutcome) {
			if !o.Block || !strings.Contains(o.Reason, "invalid answer") || !strings.Contains(o.Reason, "garbage.sh") {
				t.Errorf("got %+v", o)
			}
		}},
		{"crash fails closed", `cat >/dev/null; echo boom >&2; exit 1`, func(t *testing.T, o agent.HookOutcome) {
			if !o.Block || !strings.Contains(o.Reason, "boom") || !strings.Contains(o.Reason, "crash.sh") {
				t.Errorf("got %+v", o)
			}
		}},
		{"bad permission value fails closed", `cat >/dev/null; echo '{"permissionDecision":"maybe"}'`, func(t *testing.T, o agent.HookOutcome) {
			if !o.Block {
				t.Errorf("got %+v", o)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := strings.Fields(c.name)[0] + ".sh"
			p := script(t, dir, file, c.body)
			r := New(config.Hooks{PreToolUse: []config.Hook{{Matcher: "run_shell", Command: p, Source: ".hew/settings.json"}}}, dir, os.Environ())
			c.check(t, r.PreToolUse(context.Background(), payload("run_shell", `{"command":"rm -rf x"}`)))
		})
	}
}

func TestHookReceivesPayload(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "got.json")
	p := script(t, dir, "record.sh", `cat > "`+out+`"; pwd >> "`+out+`.cwd"`)
	r := New(config.Hooks{PostToolUseFailure: []config.Hook{{Command: p}}}, dir, nil)
	pl := payload("edit_file", `{"file_path":"a.go"}`)
	pl.Event, pl.Error = "PostToolUseFailure", "old_string not found"
	if o := r.PostToolUse(context.Background(), pl); o.Block || o.Message != "" {
		t.Fatalf("outcome %+v", o)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("payload not JSON: %s", data)
	}
	if got["hook_event_name"] != "PostToolUseFailure" || got["tool_name"] != "edit_file" || got["error"] != "old_string not found" || got["session_id"] != "s1" {
		t.Errorf("payload %v", got)
	}
	if cwd, _ := os.ReadFile(out + ".cwd"); strings.TrimSpace(string(cwd)) == "" {
		t.Error("hook did not run in a directory")
	}
}

func TestMatchers(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	block := script(t, dir, "block.sh", `cat >/dev/null; echo '{"decision":"block","reason":"matched"}'`)
	cases := []struct {
		matcher, tool string
		hit           bool
	}{
		{"", "read_file", true},
		{"*", "mcp__x__y", true},
		{"run_shell", "run_shell", true},
		{"run_shell", "run_shell_extra", false},
		{"edit_file|write_file", "write_file", true},
		{"mcp__github__.*", "mcp__github__create", true},
		{"Bash", "run_shell", true},
		{"Edit|Write", "edit_file", true},
		{"Edit|Write", "read_file", false},
		{"MultiEdit", "edit_file", true},
		{"LS", "list_files", true},
		{"mcp__github", "mcp__github__create", true},
		{"mcp__github", "mcp__githubber__x", false},
		{"Read|mcp__db", "mcp__db__query", true},
		{"mcp__db__query", "mcp__db__query", true},
		{"mcp__db__query", "mcp__db__drop", false},
	}
	for _, c := range cases {
		r := New(config.Hooks{PreToolUse: []config.Hook{{Matcher: c.matcher, Command: block}}}, dir, nil)
		if got := r.PreToolUse(context.Background(), payload(c.tool, `{}`)).Block; got != c.hit {
			t.Errorf("matcher %q on %s: hit %v, want %v", c.matcher, c.tool, got, c.hit)
		}
	}
}

func TestTimeoutFailsClosedAndKillsChildren(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	p := script(t, dir, "hang.sh", "sleep 30 & sleep 30")
	r := New(config.Hooks{
		PreToolUse:  []config.Hook{{Command: p, Timeout: 0.3}},
		PostToolUse: []config.Hook{{Command: p, Timeout: 0.3}},
	}, dir, nil)
	done := make(chan agent.HookOutcome, 1)
	go func() { done <- r.PreToolUse(context.Background(), payload("run_shell", `{}`)) }()
	select {
	case o := <-done:
		if !o.Block || !strings.Contains(o.Reason, "timed out") || !strings.Contains(o.Reason, "hang.sh") {
			t.Errorf("pre outcome %+v", o)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("hung hook was not stopped")
	}
	o := r.PostToolUse(context.Background(), payload("run_shell", `{}`))
	if o.Block || o.Stop || !strings.Contains(o.Message, "timed out") {
		t.Errorf("post outcome %+v", o)
	}
}

func TestFailingPostHookChangesNothing(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	crash := script(t, dir, "crash.sh", "exit 7")
	garbage := script(t, dir, "garbage.sh", "echo not json")
	ctxHook := script(t, dir, "ctx.sh", `echo '{"additionalContext":"tests still pass"}'`)
	r := New(config.Hooks{PostToolUse: []config.Hook{{Command: crash}, {Command: garbage}, {Command: ctxHook}}}, dir, nil)
	o := r.PostToolUse(context.Background(), payload("write_file", `{}`))
	if o.Block || o.Stop || len(o.UpdatedInput) > 0 || o.Permission != "" {
		t.Errorf("failing post hooks changed the outcome: %+v", o)
	}
	if !strings.Contains(o.Message, "crash.sh") || !strings.Contains(o.Message, "garbage.sh") {
		t.Errorf("failures not reported: %q", o.Message)
	}
	if o.AdditionalContext != "tests still pass" {
		t.Errorf("context %q", o.AdditionalContext)
	}
}

func TestChainedPreHooks(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	rewrite := script(t, dir, "rewrite.sh", `cat >/dev/null; echo '{"updatedInput":{"command":"echo safe"}}'`)
	// The second hook sees the rewritten input and asks.
	check := script(t, dir, "check.sh", `if grep -q 'echo safe'; then echo '{"permissionDecision":"ask","permissionDecisionReason":"saw rewrite"}'; else echo '{"decision":"block","reason":"old input"}'; fi`)
	allow := script(t, dir, "allow.sh", `cat >/dev/null; echo '{"permissionDecision":"allow"}'`)
	r := New(config.Hooks{PreToolUse: []config.Hook{{Command: rewrite}, {Command: check}, {Command: allow}}}, dir, nil)
	o := r.PreToolUse(context.Background(), payload("run_shell", `{"command":"rm -rf /"}`))
	if o.Block || string(o.UpdatedInput) != `{"command":"echo safe"}` || o.Permission != "ask" || o.Reason != "saw rewrite" {
		t.Errorf("got %+v", o)
	}
}

func TestCancelledContextBlocks(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	p := script(t, dir, "slow.sh", "sleep 30")
	r := New(config.Hooks{PreToolUse: []config.Hook{{Command: p}}}, dir, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if o := r.PreToolUse(ctx, payload("run_shell", `{}`)); !o.Block {
		t.Errorf("cancelled hook did not block: %+v", o)
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{}`, `{"decision":"block"}`, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"a":1}}}`, `{"continue":false}`, `[`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := parseAnswer(data)
		if err != nil {
			return
		}
		switch o.Permission {
		case "", "allow", "ask", "deny":
		default:
			t.Fatalf("invalid permission %q accepted", o.Permission)
		}
		if len(o.UpdatedInput) > 0 && !json.Valid(o.UpdatedInput) {
			t.Fatalf("invalid updatedInput accepted")
		}
	})
}
