package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
	"github.com/hew-dev/hew/internal/tools"
)

// npmInstallHint is the command that installs the real servers these tests use.
const npmInstallHint = "npm install --prefix $HEW_TEST_NPM_PREFIX @modelcontextprotocol/server-filesystem @modelcontextprotocol/server-everything (default prefix <repo>/.cache/npm)"

// realServer returns the entry script of an npm-installed MCP server,
// skipping the test when node or the package is missing.
func realServer(t *testing.T, pkg string) (node, script string) {
	t.Helper()
	node = testenv.Tool(t, "node")
	prefix := os.Getenv("HEW_TEST_NPM_PREFIX")
	if prefix == "" {
		dir, _ := os.Getwd()
		for dir != filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			dir = filepath.Dir(dir)
		}
		prefix = filepath.Join(dir, ".cache", "npm")
	}
	script = filepath.Join(prefix, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	testenv.File(t, script, pkg+"; run: "+npmInstallHint)
	return node, script
}

func realManager(t *testing.T, dir string) (*Manager, *tools.Registry) {
	t.Helper()
	node, fsScript := realServer(t, "server-filesystem")
	_, evScript := realServer(t, "server-everything")
	defs := map[string]any{
		"fs":         map[string]any{"command": node, "args": []string{fsScript, dir}},
		"everything": map[string]any{"command": node, "args": []string{evScript, "stdio"}, "callTimeout": 60},
	}
	raw, _ := json.Marshal(map[string]any{"mcpServers": defs})
	cfg := LoadConfig(ConfigOptions{Root: dir, Files: []string{string(raw)}})
	if len(cfg.Problems) > 0 {
		t.Fatal(cfg.Problems)
	}
	m := NewManager(cfg, Options{Env: os.Environ(), Backoff: func(int) time.Duration { return 10 * time.Millisecond }})
	t.Cleanup(func() { _ = m.Close() })
	reg := tools.NewRegistry()
	if errs := m.Register(context.Background(), reg, adapt); len(errs) > 0 {
		t.Fatal(errs)
	}
	return m, reg
}

func TestRealServers(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "hello.txt"), "hello from disk\n")
	m, reg := realManager(t, dir)

	for _, st := range m.Status() {
		if st.State != StateConnected || st.Tools == 0 {
			t.Fatalf("server not up: %+v", st)
		}
	}
	all := reg.All()
	t.Logf("MCP tools: %d, deferred: %d, instructions: %d bytes", len(all), len(reg.Deferred()), len(m.Instructions()))
	if len(all) > DefaultMaxTools && len(reg.Deferred()) != len(all) {
		t.Errorf("%d MCP tools exceed the budget; all must be deferred, %d are", len(all), len(reg.Deferred()))
	}

	t.Run("read a file via the filesystem server", func(t *testing.T) {
		res, err := run(t, context.Background(), reg, "mcp__fs__read_text_file", `{"path":`+quote(filepath.Join(dir, "hello.txt"))+`}`)
		if err != nil || res.IsError || !strings.Contains(res.Content, "hello from disk") {
			t.Fatalf("read_text_file: %+v %v", res, err)
		}
		tool, _ := reg.Get("mcp__fs__read_text_file")
		if !tool.ReadOnly(nil) {
			t.Errorf("read_text_file carries readOnlyHint")
		}
	})

	t.Run("outside the allowed directory is an error result", func(t *testing.T) {
		res, err := run(t, context.Background(), reg, "mcp__fs__read_text_file", `{"path":"/etc/hostname"}`)
		if err != nil || !res.IsError {
			t.Fatalf("want isError result: %+v %v", res, err)
		}
	})

	t.Run("schemas work with the loop's validation", func(t *testing.T) {
		if err := reg.Validate("mcp__everything__echo", json.RawMessage(`{"message":"x"}`)); err != nil {
			t.Errorf("valid echo input rejected: %v", err)
		}
		if err := reg.Validate("mcp__everything__echo", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "message") {
			t.Errorf("missing message must be a validation error naming it: %v", err)
		}
		if err := reg.Validate("mcp__fs__read_text_file", json.RawMessage(`{"path":"/x"}`)); err != nil {
			t.Errorf("valid read_text_file input rejected: %v", err)
		}
	})

	t.Run("echo", func(t *testing.T) {
		res, err := run(t, context.Background(), reg, "mcp__everything__echo", `{"message":"ping 42"}`)
		if err != nil || res.IsError || !strings.Contains(res.Content, "ping 42") {
			t.Fatalf("echo: %+v %v", res, err)
		}
	})

	t.Run("cancel a long-running call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var err error
		within(t, 20*time.Second, "cancelled long-running call", func() {
			go func() { time.Sleep(300 * time.Millisecond); cancel() }()
			_, err = run(t, ctx, reg, "mcp__everything__trigger-long-running-operation", `{"duration":60,"steps":60}`)
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want cancelled, got %v", err)
		}
		res, err := run(t, context.Background(), reg, "mcp__everything__echo", `{"message":"after cancel"}`)
		if err != nil || !strings.Contains(res.Content, "after cancel") {
			t.Fatalf("server unusable after cancel: %+v %v", res, err)
		}
		if st := statusOf(t, m, "everything"); st.State != StateConnected {
			t.Errorf("cancel is not a fault: %+v", st)
		}
	})

	t.Run("kill the server mid-call", func(t *testing.T) {
		s := serverNamed(t, m, "everything")
		s.mu.Lock()
		proc := s.cmd.Process
		s.mu.Unlock()
		go func() { time.Sleep(500 * time.Millisecond); _ = proc.Kill() }()
		var err error
		within(t, 30*time.Second, "call to a killed server", func() {
			_, err = run(t, context.Background(), reg, "mcp__everything__trigger-long-running-operation", `{"duration":60,"steps":60}`)
		})
		if err == nil || !strings.Contains(err.Error(), "restarted on the next call") {
			t.Fatalf("want an error result for the killed call, got %v", err)
		}
		res, err := run(t, context.Background(), reg, "mcp__everything__echo", `{"message":"reborn"}`)
		if err != nil || !strings.Contains(res.Content, "reborn") {
			t.Fatalf("next call must restart the server: %+v %v", res, err)
		}
		if st := statusOf(t, m, "everything"); st.State != StateConnected {
			t.Errorf("after restart: %+v", st)
		}
	})
}

func serverNamed(t *testing.T, m *Manager, name string) *conn {
	t.Helper()
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	t.Fatalf("no server %s", name)
	return nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
