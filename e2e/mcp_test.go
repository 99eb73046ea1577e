package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hew-dev/hew/internal/testenv"
)

// everythingServer locates the npm-installed MCP reference server (make test
// installs it into HEW_TEST_NPM_PREFIX, default <repo>/.cache/npm).
func everythingServer(t *testing.T) (node, script string) {
	t.Helper()
	node = testenv.Tool(t, "node")
	prefix := os.Getenv("HEW_TEST_NPM_PREFIX")
	if prefix == "" {
		wd, _ := os.Getwd()
		prefix = filepath.Join(filepath.Dir(wd), ".cache", "npm")
	}
	script = filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	testenv.File(t, script, "server-everything; run make deps")
	return node, script
}

// An MCP server from --mcp-config joins the loop: its tool is offered to the
// model, runs through hew's permission rules, and its answer comes back.
func TestMCPToolInHeadlessRun(t *testing.T) {
	t.Parallel()
	node, script := everythingServer(t)
	s := newSandbox(t, false)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{script, "stdio"}},
	}})
	cfgPath := s.scenario("mcp.json", string(cfg))
	sc := s.scenario("echo.json", `{"turns": [
 {"tool_calls": [{"name": "mcp__everything__echo", "input": {"message": "ping through mcp"}}]},
 {"text": "The server echoed."}
]}`)
	env := []string{"HEW_MOCK_SCRIPT=" + sc}

	// Without an allow rule the call would ask; headless denies it.
	r := s.run(env, "--mock", "-p", "--mcp-config", cfgPath, "--output-format", "stream-json", "echo something")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	if tools, _ := evs[0]["tools"].([]any); !containsAny(tools, "mcp__everything__echo") {
		t.Errorf("init tools lack the MCP tool: %v", evs[0]["tools"])
	}
	if d := ofType(evs, "permission_denial"); len(d) != 1 || d[0]["tool"] != "mcp__everything__echo" {
		t.Errorf("denials = %v", d)
	}

	r = s.run(env, "--mock", "-p", "--mcp-config", cfgPath, "--allowed-tools", "mcp__everything", "--output-format", "stream-json", "echo something")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	evs = events(t, r.stdout)
	res := ofType(evs, "tool_result")
	if len(res) != 1 || res[0]["is_error"] != false || !strings.Contains(res[0]["content"].(string), "ping through mcp") {
		t.Errorf("tool results = %v\nstderr:\n%s", res, r.stderr)
	}
}

func TestMCPListAndAdd(t *testing.T) {
	t.Parallel()
	node, script := everythingServer(t)
	s := newSandbox(t, false)
	r := s.run(nil, "mcp", "add", "everything", "--", node, script, "stdio")
	if r.code != 0 {
		t.Fatalf("mcp add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The default scope is local (SPEC §1): this machine's settings, not
	// the committed .mcp.json.
	if _, err := os.Stat(filepath.Join(s.proj, ".hew", "settings.local.json")); err != nil {
		t.Fatalf("mcp add wrote no .hew/settings.local.json: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.proj, ".mcp.json")); err == nil {
		t.Fatal("mcp add wrote .mcp.json without --scope project")
	}
	r = s.run(nil, "mcp", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "everything") {
		t.Errorf("mcp list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := s.run(nil, "mcp", "remove", "everything"); r.code != 0 {
		t.Errorf("mcp remove: exit %d\n%s", r.code, r.stderr)
	}
}

// `hew mcp serve` offers hew's tools to an MCP client, under hew's rules:
// reads run, a write that would ask is denied (no one can be asked).
func TestMCPServe(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	s.write("notes.txt", "served over mcp\n")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: s.cmd(nil, "mcp", "serve")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	if !names["read_file"] || !names["run_shell"] || !names["write_file"] {
		t.Errorf("served tools = %v", names)
	}
	text := func(r *sdk.CallToolResult) string {
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"file_path": "notes.txt"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "served over mcp") {
		t.Errorf("read_file: %v %+v %q", err, res, text(res))
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"file_path": "new.txt", "content": "x"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "denied") {
		t.Errorf("write_file: %v %+v %q", err, res, text(res))
	}
	if _, err := os.Stat(filepath.Join(s.proj, "new.txt")); err == nil {
		t.Error("a write that would ask ran over mcp serve")
	}
}
