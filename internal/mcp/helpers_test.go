package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server (HEW_MCP_HELPER=1), so fault
// tests can crash and hang a real child process.
func TestMain(m *testing.M) {
	if os.Getenv("HEW_MCP_HELPER") == "1" {
		runHelperServer()
		return
	}
	os.Exit(m.Run())
}

func runHelperServer() {
	if os.Getenv("HEW_MCP_HELPER_SILENT") == "1" {
		// Never answers initialize: a server that hangs at start.
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"},
		&sdk.ServerOptions{Instructions: "Use helper tools for testing."})
	type msg struct {
		Message string `json:"message"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echoes the message",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, in msg) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Message}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "crash", Description: "Exits the server mid-call"},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "hang", Description: "Never answers"},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			select {}
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "env", Description: "Returns HELPER_VAR and the working directory"},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			wd, _ := os.Getwd()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: os.Getenv("HELPER_VAR") + "|" + wd}}}, nil, nil
		})
	if p := os.Getenv("HEW_MCP_HELPER_STARTS"); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	fmt.Fprintln(os.Stderr, "helper server ready")
	_ = srv.Run(context.Background(), &sdk.StdioTransport{})
}

// helperServer is the stdio config that runs this test binary as a server.
func helperServer(t *testing.T, name string, env map[string]string) json.RawMessage {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"HEW_MCP_HELPER": "1"}
	for k, v := range env {
		e[k] = v
	}
	raw, _ := json.Marshal(map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "env": e,
		"startupTimeout": 20, "callTimeout": 20})
	return raw
}

// fakeServer is an in-process server with the shapes the shaping and
// naming code must handle.
type fakeServer struct {
	srv       *sdk.Server
	cancelled chan string // tool "wait" reports its context's end here
}

func newFakeServer(extraTools int) *fakeServer {
	f := &fakeServer{cancelled: make(chan string, 4)}
	f.srv = sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"},
		&sdk.ServerOptions{Instructions: "Fake server: call echo first."})
	type msg struct {
		Message string `json:"message" jsonschema:"what to echo"`
	}
	sdk.AddTool(f.srv, &sdk.Tool{Name: "echo", Description: "Echoes the message",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, in msg) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Message}}}, nil, nil
		})
	sdk.AddTool(f.srv, &sdk.Tool{Name: "write.thing/v2", Description: "A tool with an unsafe name"},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "wrote"}}}, nil, nil
		})
	sdk.AddTool(f.srv, &sdk.Tool{Name: "mixed", Description: "Returns every content kind"},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "first"},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
				&sdk.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://notes", Text: "embedded text"}},
			}}, nil, nil
		})
	sdk.AddTool(f.srv, &sdk.Tool{Name: "fail", Description: "Fails as a tool"},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("boom: disk full")
		})
	sdk.AddTool(f.srv, &sdk.Tool{Name: "wait", Description: "Waits until cancelled"},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			<-ctx.Done()
			f.cancelled <- "cancelled"
			return nil, nil, ctx.Err()
		})
	for i := range extraTools {
		sdk.AddTool(f.srv, &sdk.Tool{Name: fmt.Sprintf("extra_%02d", i), Description: "Extra tool"},
			func(ctx context.Context, req *sdk.CallToolRequest, in msg) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
			})
	}
	return f
}

// inMemoryManager builds a Manager whose servers are in-process fakes.
func inMemoryManager(t testing.TB, servers map[string]*fakeServer, raw map[string]string, opts Options) *Manager {
	t.Helper()
	src := Source{Scope: ScopeProject, Path: "/proj/.mcp.json", Servers: map[string]json.RawMessage{}}
	for name := range servers {
		def := `{"command":"unused"}`
		if r, ok := raw[name]; ok {
			def = r
		}
		src.Servers[name] = json.RawMessage(def)
	}
	cfg := LoadConfig(ConfigOptions{Settings: []Source{src}})
	if len(cfg.Problems) > 0 {
		t.Fatalf("config problems: %v", cfg.Problems)
	}
	m := NewManager(cfg, opts)
	var mu sync.Mutex
	m.dial = func(sc *ServerConfig) (sdk.Transport, error) {
		mu.Lock()
		defer mu.Unlock()
		f := servers[sc.Name]
		ct, st := sdk.NewInMemoryTransports()
		if _, err := f.srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// run calls a registered tool the way the agent would.
func run(t *testing.T, ctx context.Context, reg *tools.Registry, name, input string) (tools.Result, error) {
	t.Helper()
	tool, ok := reg.Get(name)
	if !ok {
		t.Fatalf("tool %s not registered; have %v", name, names(reg))
	}
	return tool.Run(ctx, &tools.Env{}, json.RawMessage(input))
}

func names(reg *tools.Registry) []string {
	var out []string
	for _, t := range reg.All() {
		out = append(out, t.Name())
	}
	return out
}

func statusOf(t *testing.T, m *Manager, name string) ServerStatus {
	t.Helper()
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for %s", name)
	return ServerStatus{}
}

// within fails the test if fn does not return in d (a hang guard, generous
// so slow machines pass).
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

type rawJSON = json.RawMessage

// withTimeout sets a server definition's startupTimeout (seconds).
func withTimeout(raw json.RawMessage, secs float64) json.RawMessage {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	m["startupTimeout"] = secs
	out, _ := json.Marshal(m)
	return out
}

// syncBuffer is a log the servers' stderr copiers may write while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serverTool is the test's own adapter from a ServerTool to tools.Tool
// (internal/tools/mcp is the real one; it imports this package, so these
// tests cannot use it).
type serverTool struct{ st *ServerTool }

func adapt(st *ServerTool) tools.Tool { return serverTool{st} }

func (t serverTool) Name() string                  { return t.st.Name() }
func (t serverTool) Description() string           { return t.st.Description() }
func (t serverTool) Schema() json.RawMessage       { return t.st.Schema() }
func (t serverTool) ReadOnly(json.RawMessage) bool { return t.st.ReadOnly() }
func (t serverTool) Deferred() bool                { return t.st.Deferred() }
func (t serverTool) Run(ctx context.Context, _ *tools.Env, input json.RawMessage) (tools.Result, error) {
	res, err := t.st.Call(ctx, input)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: ShapeResult(res), IsError: res.IsError}, nil
}
