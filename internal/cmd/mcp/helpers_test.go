package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server (HEW_MCP_HELPER=1) with two
// tools, so list starts a real child process.
func TestMain(m *testing.M) {
	if os.Getenv("HEW_MCP_HELPER") == "1" {
		if p := os.Getenv("HEW_MCP_HELPER_STARTS"); p != "" {
			if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, os.Getpid())
				f.Close()
			}
		}
		srv := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"}, nil)
		for _, name := range []string{"one", "two"} {
			sdk.AddTool(srv, &sdk.Tool{Name: name, Description: "does " + name},
				func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name}}}, nil, nil
				})
		}
		_ = srv.Run(context.Background(), &sdk.StdioTransport{})
		return
	}
	os.Exit(m.Run())
}

// helperServer is the definition of a server that runs this test binary;
// starts, when set, is a file each start appends a line to.
func helperServer(t *testing.T, starts string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]any{"HEW_MCP_HELPER": "1"}
	if starts != "" {
		env["HEW_MCP_HELPER_STARTS"] = starts
	}
	return map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "env": env, "startupTimeout": 20}
}

func cli(t *testing.T, o Options, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	o.Stdout, o.Stderr = &out, &errb
	code := Run(o, args)
	return code, out.String(), errb.String()
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s is not valid JSON after the edit: %v\n%s", path, err, data)
	}
	return m
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

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func jsonQuote(s string) string { return mustJSON(s) }
