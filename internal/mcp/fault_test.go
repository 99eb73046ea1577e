package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/tools"
)

// helperManager runs the test binary as stdio server "h"; starts are logged
// (one pid a line) to the returned file.
func helperManager(t *testing.T, opts Options, extra map[string]any) (*Manager, *tools.Registry, string) {
	t.Helper()
	starts := filepath.Join(t.TempDir(), "starts")
	raw := helperServer(t, "h", map[string]string{"HEW_MCP_HELPER_STARTS": starts, "HELPER_VAR": "${OUTER:-fallback}"})
	if len(extra) > 0 {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		for k, v := range extra {
			m[k] = v
		}
		raw, _ = json.Marshal(m)
	}
	root := t.TempDir()
	cfg := LoadConfig(ConfigOptions{Root: root, LookupEnv: envOf(nil),
		Settings: []Source{{Scope: ScopeProject, Path: filepath.Join(root, ".mcp.json"), Servers: map[string]json.RawMessage{"h": raw}}}})
	if len(cfg.Problems) > 0 {
		t.Fatal(cfg.Problems)
	}
	if opts.Backoff == nil {
		opts.Backoff = func(int) time.Duration { return time.Millisecond }
	}
	m := NewManager(cfg, opts)
	t.Cleanup(func() { _ = m.Close() })
	reg := tools.NewRegistry()
	if errs := m.Register(context.Background(), reg, adapt); len(errs) > 0 {
		t.Fatal(errs)
	}
	return m, reg, starts
}

func countStarts(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(strings.Fields(string(data)))
}

func TestStdioEnvAndCwd(t *testing.T) {
	t.Parallel()
	m, reg, _ := helperManager(t, Options{}, map[string]any{"cwd": "."})
	res, err := run(t, context.Background(), reg, "mcp__h__env", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	src := m.servers[0].cfg
	if !strings.HasPrefix(res.Content, "fallback|") || !strings.HasSuffix(res.Content, src.Cwd) {
		t.Errorf("env/cwd = %q, want fallback|%s", res.Content, src.Cwd)
	}
	if m.Instructions() != "## h\nUse helper tools for testing." {
		t.Errorf("instructions = %q", m.Instructions())
	}
}

func TestCrashMidCallThenReconnect(t *testing.T) {
	t.Parallel()
	m, reg, starts := helperManager(t, Options{}, nil)
	res, err := run(t, context.Background(), reg, "mcp__h__crash", `{}`)
	if err == nil || !strings.Contains(err.Error(), "restarted on the next call") {
		t.Fatalf("a crash mid-call must be an error result: %+v %v", res, err)
	}
	if st := statusOf(t, m, "h"); st.State != StateDisconnected {
		t.Errorf("after a crash: %+v", st)
	}
	res, err = run(t, context.Background(), reg, "mcp__h__echo", `{"message":"back"}`)
	if err != nil || res.Content != "echo: back" {
		t.Fatalf("next call must reconnect: %+v %v", res, err)
	}
	if n := countStarts(t, starts); n != 2 {
		t.Errorf("server started %d times, want 2", n)
	}
	if st := statusOf(t, m, "h"); st.State != StateConnected || st.Tools != 4 {
		t.Errorf("after reconnect: %+v", st)
	}
}

func TestRepeatedFaultsMarkFailed(t *testing.T) {
	t.Parallel()
	m, reg, starts := helperManager(t, Options{MaxFaults: 3}, nil)
	for i := range 3 {
		if _, err := run(t, context.Background(), reg, "mcp__h__crash", `{}`); err == nil {
			t.Fatalf("crash %d: no error", i+1)
		}
	}
	st := statusOf(t, m, "h")
	if st.State != StateFailed || !strings.Contains(st.Error, "3 faults in a row") {
		t.Fatalf("after 3 faults: %+v", st)
	}
	_, err := run(t, context.Background(), reg, "mcp__h__echo", `{"message":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Fatalf("a failed server must refuse calls: %v", err)
	}
	if n := countStarts(t, starts); n != 3 {
		t.Errorf("started %d times, want 3 (no restart once failed)", n)
	}
	if err := m.Reconnect(context.Background(), "h"); err != nil {
		t.Fatalf("Reconnect: %v", err)
	}
	if res, err := run(t, context.Background(), reg, "mcp__h__echo", `{"message":"again"}`); err != nil || res.Content != "echo: again" {
		t.Errorf("after Reconnect: %+v %v", res, err)
	}
}

func TestHangTimesOutAndRestarts(t *testing.T) {
	t.Parallel()
	m, reg, starts := helperManager(t, Options{}, map[string]any{"callTimeout": 0.3})
	var err error
	within(t, 30*time.Second, "hung call", func() {
		_, err = run(t, context.Background(), reg, "mcp__h__hang", `{}`)
	})
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("a hang must end in an error result: %v", err)
	}
	res, err := run(t, context.Background(), reg, "mcp__h__echo", `{"message":"fresh"}`)
	if err != nil || res.Content != "echo: fresh" {
		t.Fatalf("after a hang: %+v %v", res, err)
	}
	if n := countStarts(t, starts); n != 2 {
		t.Errorf("started %d times, want 2", n)
	}
	if st := statusOf(t, m, "h"); st.State != StateConnected {
		t.Errorf("status %+v", st)
	}
}

func TestServerExitWhileIdleRestartsOnNextCall(t *testing.T) {
	t.Parallel()
	m, reg, starts := helperManager(t, Options{}, nil)
	s := m.servers[0]
	s.mu.Lock()
	proc := s.cmd.Process
	s.mu.Unlock()
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	// The next call reconnects whether or not the exit was noticed yet.
	res, err := run(t, context.Background(), reg, "mcp__h__echo", `{"message":"x"}`)
	if err != nil {
		// The exit raced the call: that call fails, the next one restarts.
		res, err = run(t, context.Background(), reg, "mcp__h__echo", `{"message":"x"}`)
	}
	if err != nil || res.Content != "echo: x" {
		t.Fatalf("after an idle exit: %+v %v", res, err)
	}
	if n := countStarts(t, starts); n != 2 {
		t.Errorf("started %d times, want 2", n)
	}
}
