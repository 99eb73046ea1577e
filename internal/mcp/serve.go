package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolExecutor runs one tool call through hew's whole pipeline (validation,
// hooks, permissions, run, result shaping) and returns the tool_result
// block. (*agent.Executor).Execute has this shape; for `hew mcp serve` the
// app gives it an Approver that denies, since no one can be asked.
type ToolExecutor interface {
	Execute(ctx context.Context, call llm.Block) llm.Block
}

// ServedTools lists the tools Serve exposes from reg: the visible ones,
// minus those that make sense only inside a hew session
// (tools.SessionOnly) and other servers' MCP tools.
func ServedTools(reg *tools.Registry) []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, s := range reg.Specs() {
		if t, ok := reg.Get(s.Name); !ok || tools.IsSessionOnly(t) || strings.HasPrefix(s.Name, "mcp__") {
			continue
		}
		var schema struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(s.InputSchema, &schema) != nil || schema.Type != "object" {
			continue // MCP requires an object schema
		}
		out = append(out, s)
	}
	return out
}

// Serve exposes hew's own tools as an MCP server over in/out (stdio for
// `hew mcp serve`) until the client disconnects or ctx ends. Every call goes
// through exec, so hew's permission rules apply.
func Serve(ctx context.Context, in io.Reader, out io.Writer, exec ToolExecutor, reg *tools.Registry) error {
	srv := NewServer(exec, reg)
	t := &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp serve: %w", err)
	}
	return nil
}

// NewServer builds the MCP server Serve runs, for other transports.
func NewServer(exec ToolExecutor, reg *tools.Registry) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "hew", Version: "dev"}, &sdk.ServerOptions{
		Instructions: "hew's built-in coding tools (files, search, shell) for the project hew was started in. " +
			"hew's permission rules apply; an operation that would need the user's approval is denied.",
	})
	var seq atomic.Int64
	for _, spec := range ServedTools(reg) {
		name := spec.Name
		ro := false
		if t, ok := reg.Get(name); ok {
			ro = t.ReadOnly(json.RawMessage(`{}`))
		}
		srv.AddTool(&sdk.Tool{
			Name:        name,
			Description: spec.Description,
			InputSchema: json.RawMessage(spec.InputSchema),
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro},
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			input := req.Params.Arguments
			if len(input) == 0 || string(input) == "null" {
				input = json.RawMessage(`{}`)
			}
			id := fmt.Sprintf("mcp_serve_%d", seq.Add(1))
			res := exec.Execute(ctx, llm.Block{Type: llm.BlockToolUse, ID: id, Name: name, Input: input})
			text := res.Content
			if text == "" && !res.IsError {
				text = "(no output)"
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: res.IsError}, nil
		})
	}
	return srv
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
