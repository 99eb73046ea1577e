package mcp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fileTool is a small stand-in for a built-in file tool.
type fileTool struct {
	name, schema string
	write        bool
	root         string
}

func (f fileTool) Name() string                  { return f.name }
func (f fileTool) Description() string           { return "test " + f.name }
func (f fileTool) Schema() json.RawMessage       { return json.RawMessage(f.schema) }
func (f fileTool) ReadOnly(json.RawMessage) bool { return !f.write }
func (f fileTool) Run(_ context.Context, _ *tools.Env, in json.RawMessage) (tools.Result, error) {
	var args struct {
		Path    string `json:"file_path"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(in, &args); err != nil {
		return tools.Result{}, err
	}
	p := filepath.Join(f.root, args.Path)
	if f.write {
		return tools.Result{Content: "wrote " + args.Path}, os.WriteFile(p, []byte(args.Content), 0o644)
	}
	data, err := os.ReadFile(p)
	return tools.Result{Content: string(data)}, err
}

// denyingExecutor plays the agent's pipeline with a denying approver: reads
// run, writes would ask and are therefore denied. It records what it saw.
type denyingExecutor struct {
	reg   *tools.Registry
	calls []llm.Block
}

func (e *denyingExecutor) Execute(ctx context.Context, call llm.Block) llm.Block {
	e.calls = append(e.calls, call)
	out := llm.Block{Type: llm.BlockToolResult, ID: call.ID}
	t, ok := e.reg.Get(call.Name)
	switch {
	case !ok:
		out.Content, out.IsError = "unknown tool "+call.Name, true
	case !t.ReadOnly(call.Input):
		out.Content, out.IsError = "Action denied: "+call.Name+" needs approval and no one can be asked", true
	default:
		res, err := t.Run(ctx, nil, call.Input)
		out.Content, out.IsError = res.Content, res.IsError
		if err != nil {
			out.Content, out.IsError = err.Error(), true
		}
	}
	return out
}

// sessionTool declares itself tools.SessionOnly, as tool_search does.
type sessionTool struct{ fileTool }

func (sessionTool) SessionOnly() bool { return true }

// hew's own built-ins are served except those that declare themselves
// session-only (tool_search, todo_write), decided by that property alone: a
// new tool that declares it is left out with no list to change.
func TestServedBuiltins(t *testing.T) {
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	reg.Register(sessionTool{fileTool{name: "probe", schema: `{"type":"object","properties":{}}`}}) // a new session-only tool
	var got []string
	for _, s := range ServedTools(reg) {
		got = append(got, s.Name)
	}
	if strings.Join(got, ",") != "read_file,write_file,edit_file,list_files,grep_search,run_shell,web_fetch" {
		t.Fatalf("served = %v", got)
	}
}

func serveRegistry(root string) *tools.Registry {
	reg := tools.NewRegistry()
	reg.Register(fileTool{name: "read_file", root: root,
		schema: `{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`})
	reg.Register(fileTool{name: "write_file", write: true, root: root,
		schema: `{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}},"required":["file_path","content"]}`})
	reg.Register(sessionTool{fileTool{name: "tool_search", root: root, schema: `{"type":"object","properties":{}}`}})
	reg.Register(sessionTool{fileTool{name: "todo_write", root: root, schema: `{"type":"object","properties":{}}`}})
	reg.Register(fileTool{name: "mcp__other__x", root: root, schema: `{"type":"object","properties":{}}`})
	return reg
}

func TestServeDrivenBySDKClient(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "notes.txt"), "served content")
	reg := serveRegistry(root)
	exec := &denyingExecutor{reg: reg}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, inR, outW, exec, reg)
		outW.Close()
	}()

	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "denied") {
		t.Errorf("instructions should say asks are denied: %q", cs.InitializeResult().Instructions)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range lt.Tools {
		got = append(got, tl.Name)
	}
	if strings.Join(got, ",") != "read_file,write_file" {
		t.Fatalf("served tools = %v (session-only and MCP tools must be left out)", got)
	}

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"file_path": "notes.txt"}})
	if err != nil || res.IsError || ShapeResult(res) != "served content" {
		t.Fatalf("read_file: %+v %v", res, err)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"file_path": "x.txt", "content": "no"}})
	if err != nil || !res.IsError || !strings.Contains(ShapeResult(res), "Action denied") {
		t.Fatalf("write_file must be denied: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(root, "x.txt")); err == nil {
		t.Errorf("denied write happened")
	}
	if len(exec.calls) != 2 || exec.calls[0].Type != llm.BlockToolUse || exec.calls[0].ID == exec.calls[1].ID ||
		string(exec.calls[0].Input) != `{"file_path":"notes.txt"}` {
		t.Errorf("executor got %+v", exec.calls)
	}
	cs.Close()
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve returned %v after the client left", err)
	}
}
