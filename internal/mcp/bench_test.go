package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func BenchmarkToolName(b *testing.B) {
	long := strings.Repeat("tool.name/", 8)
	for b.Loop() {
		_ = ToolName("my.server", "read_file")
		_ = ToolName("srv", long)
	}
}

func BenchmarkShapeResult(b *testing.B) {
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: strings.Repeat("line of output\n", 200)},
		&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 4096)},
		&sdk.ResourceLink{URI: "file:///a.txt", Name: "a.txt"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://x", Text: "embedded"}},
	}}
	for b.Loop() {
		_ = ShapeResult(res)
	}
}

func BenchmarkNormalizeSchema(b *testing.B) {
	var schema map[string]any
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"path":{"type":"string","description":"file"},"limit":{"type":"integer"},"opts":{"type":"object","properties":{"a":{"type":"boolean"}}}},"required":["path"]}`), &schema)
	for b.Loop() {
		_ = normalizeSchema(schema)
	}
}

// BenchmarkCallInMemory is one tool call through Tool.Run, the manager and
// the SDK client to an in-process server.
func BenchmarkCallInMemory(b *testing.B) {
	m := inMemoryManager(b, map[string]*fakeServer{"fake": newFakeServer(0)}, nil, Options{})
	reg := tools.NewRegistry()
	if errs := m.Register(context.Background(), reg, adapt); len(errs) > 0 {
		b.Fatal(errs)
	}
	tool, _ := reg.Get("mcp__fake__echo")
	in := json.RawMessage(`{"message":"hello"}`)
	for b.Loop() {
		if res, err := tool.Run(context.Background(), nil, in); err != nil || res.Content != "hello" {
			b.Fatal(res, err)
		}
	}
}
