// Package mcp adapts the tools of MCP servers to hew's tools.Tool: each
// server tool becomes mcp__SERVER__TOOL for the model, described, bounded
// and called as its server says. Connecting, restarting and naming are
// internal/mcp; this package is only what the model calls.
package mcp

import (
	"context"
	"encoding/json"

	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/tools"
)

// Tool is one server tool as hew's loop sees it.
type Tool struct{ st *mcp.ServerTool }

var (
	_ tools.Tool       = (*Tool)(nil)
	_ tools.Deferred   = (*Tool)(nil)
	_ tools.Summarizer = (*Tool)(nil)
	_ tools.Subjecter  = (*Tool)(nil)
)

// New adapts a server tool (the adapt function of mcp.Manager.Register).
func New(st *mcp.ServerTool) tools.Tool { return &Tool{st: st} }

// Register starts m's servers (if needed) and adds their tools to reg,
// now and whenever a server announces new ones (mcp.Manager.Register).
func Register(ctx context.Context, m *mcp.Manager, reg *tools.Registry) []error {
	return m.Register(ctx, reg, New)
}

// Name is mcp__SERVER__TOOL.
func (t *Tool) Name() string { return t.st.Name() }

// Description is the server's description, marked with its server.
func (t *Tool) Description() string { return t.st.Description() }

// Schema is the server's input schema (deterministic bytes).
func (t *Tool) Schema() json.RawMessage { return t.st.Schema() }

// ReadOnly follows the server's readOnlyHint annotation.
func (t *Tool) ReadOnly(json.RawMessage) bool { return t.st.ReadOnly() }

// Deferred reports whether the MCP tools exceeded the budget, so this one is
// found through tool_search.
func (t *Tool) Deferred() bool { return t.st.Deferred() }

// Server is the configured name of the tool's server.
func (t *Tool) Server() string { return t.st.Server() }

// Summary implements tools.Summarizer: a server's schema is unknown to
// hew, so the call is shown by its most telling argument (tools.Guess).
func (t *Tool) Summary(input json.RawMessage) string { return tools.Guess(input) }

// Subject implements tools.Subjecter: approving a server tool is about the
// tool itself (a "yes for this session" covers that tool), shown with its
// most telling argument.
func (t *Tool) Subject(input json.RawMessage) string { return tools.GuessSubject(input) }

// Run calls the server with the server's call timeout. Transport faults are
// returned as errors (the loop makes them error results); a tool's own
// failure (isError) is an error result.
func (t *Tool) Run(ctx context.Context, _ *tools.Env, input json.RawMessage) (tools.Result, error) {
	res, err := t.st.Call(ctx, input)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: mcp.ShapeResult(res), IsError: res.IsError}, nil
}
