package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// server starts an MCP server over streamable HTTP with a read-only echo
// tool and a failing one, and returns a Manager configured for it.
func server(t *testing.T, opts mcp.Options) *mcp.Manager {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	type msg struct {
		Message string `json:"message"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echoes the message", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in msg) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Message}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "fail", Description: "Fails as a tool"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	src := mcp.Source{Scope: mcp.ScopeProject, Path: "/p/.mcp.json", Servers: map[string]json.RawMessage{
		"web": json.RawMessage(`{"type":"http","url":"` + ts.URL + `"}`),
	}}
	m := mcp.NewManager(mcp.LoadConfig(mcp.ConfigOptions{Settings: []mcp.Source{src}}), opts)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// A server's tools are registered as mcp__SERVER__TOOL with the server's
// description, schema and readOnlyHint, describe their own calls, and run
// on the server: a tool's failure is an error result, not a fault.
func TestServerToolsThroughTheRegistry(t *testing.T) {
	m := server(t, mcp.Options{})
	reg := tools.NewRegistry()
	if errs := Register(context.Background(), m, reg); len(errs) != 0 {
		t.Fatal(errs)
	}
	if got := strings.Join(reg.Names(), ","); got != "mcp__web__echo,mcp__web__fail" {
		t.Fatalf("registered %s", got)
	}
	echo, _ := reg.Get("mcp__web__echo")
	if !strings.HasPrefix(echo.Description(), "Echoes the message") || !strings.HasSuffix(echo.Description(), "(MCP server web)") {
		t.Errorf("description %q", echo.Description())
	}
	in := json.RawMessage(`{"message":"hi"}`)
	if err := reg.Validate("mcp__web__echo", json.RawMessage(`{"message":3}`)); err == nil {
		t.Error("the server's schema is not enforced")
	}
	if !echo.ReadOnly(in) {
		t.Error("readOnlyHint lost")
	}
	if got := tools.Summarize(echo, echo.Name(), in); got != "mcp__web__echo(hi)" {
		t.Errorf("summary %q", got)
	}
	if got := tools.SubjectOf(echo, in); got != `{"message":"hi"}` {
		t.Errorf("subject %q", got)
	}
	res, err := echo.Run(context.Background(), &tools.Env{}, in)
	if err != nil || res.IsError || res.Content != "echo: hi" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	fail, _ := reg.Get("mcp__web__fail")
	if fail.ReadOnly(nil) {
		t.Error("a tool without readOnlyHint is read-only")
	}
	res, err = fail.Run(context.Background(), &tools.Env{}, json.RawMessage(`{}`))
	if err != nil || !res.IsError || res.Content != "it broke" {
		t.Fatalf("fail: %+v %v", res, err)
	}
	if _, err := echo.Run(context.Background(), &tools.Env{}, json.RawMessage(`[1]`)); err == nil {
		t.Error("a non-object input reached the server")
	}
}

// Past the deferral budget every server tool is deferred: found through
// tool_search, not sent with the first request.
func TestServerToolsDeferredPastTheBudget(t *testing.T) {
	m := server(t, mcp.Options{MaxTools: 1})
	reg := tools.NewRegistry()
	if errs := Register(context.Background(), m, reg); len(errs) != 0 {
		t.Fatal(errs)
	}
	if len(reg.Names()) != 0 || len(reg.Deferred()) != 2 {
		t.Fatalf("visible %v, deferred %d", reg.Names(), len(reg.Deferred()))
	}
}
