package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxNameLen is the longest tool name both model APIs accept.
const MaxNameLen = 64

// maxDescription caps a server tool's description; some servers ship
// manuals there and every byte is sent on each request.
const maxDescription = 2048

// ToolName is the name the model sees for a server's tool: mcp__SERVER__TOOL
// with characters outside [a-zA-Z0-9_-] replaced by "_", cut to 64
// characters with a stable hash suffix when too long.
func ToolName(server, tool string) string {
	name := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= MaxNameLen {
		return name
	}
	return withHash(name[:MaxNameLen-9], server, tool)
}

// withHash appends "_" and 8 hex digits of a hash of the original names.
func withHash(prefix, server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return prefix + "_" + hex.EncodeToString(sum[:4])
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// ServerPrefix is the permission-rule form that matches every tool of a
// server (mcp__SERVER).
func ServerPrefix(server string) string { return "mcp__" + sanitize(server) }

// keepTool applies a server's enabledTools / disabledTools filters.
func keepTool(sc *ServerConfig, name string) bool {
	match := func(pats []string) bool {
		for _, p := range pats {
			if p == name {
				return true
			}
			// "*" spans "/" too: tool names are not paths.
			if ok, err := path.Match(strings.ReplaceAll(p, "/", "\x00"), strings.ReplaceAll(name, "/", "\x00")); err == nil && ok {
				return true
			}
		}
		return false
	}
	if len(sc.EnabledTools) > 0 && !match(sc.EnabledTools) {
		return false
	}
	return !match(sc.DisabledTools)
}

// ServerTool is one tool of a connected server as the model will see it:
// its hew name, the server's description and schema, and a way to call
// it. internal/tools/mcp adapts it to a tools.Tool.
type ServerTool struct {
	name     string
	server   *conn
	remote   string // the tool's name on the server
	desc     string
	schema   json.RawMessage
	readOnly bool
	deferred bool
}

func newTool(s *conn, t *sdk.Tool, name string) *ServerTool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	if len(desc) > maxDescription {
		desc = desc[:maxDescription] + "…"
	}
	desc = fmt.Sprintf("%s (MCP server %s)", desc, s.cfg.Name)
	return &ServerTool{
		name:     name,
		server:   s,
		remote:   t.Name,
		desc:     strings.TrimSpace(desc),
		schema:   normalizeSchema(t.InputSchema),
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
	}
}

// normalizeSchema returns deterministic bytes for a server's input schema:
// encoding/json sorts map keys, so the same schema always marshals alike.
// A missing or non-object schema becomes an empty object schema, which both
// model APIs require.
func normalizeSchema(s any) json.RawMessage {
	var m map[string]any
	if raw, err := json.Marshal(s); err == nil {
		_ = json.Unmarshal(raw, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	if m["type"] != "object" {
		m = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return out
}

// Name is mcp__SERVER__TOOL.
func (t *ServerTool) Name() string { return t.name }

// Description is the server's description, marked with its server.
func (t *ServerTool) Description() string { return t.desc }

// Schema is the server's input schema (deterministic bytes).
func (t *ServerTool) Schema() json.RawMessage { return t.schema }

// ReadOnly is the server's readOnlyHint annotation.
func (t *ServerTool) ReadOnly() bool { return t.readOnly }

// Deferred reports whether the MCP tools exceeded the budget, so this one is
// found through tool_search.
func (t *ServerTool) Deferred() bool { return t.deferred }

// Server is the configured name of the tool's server.
func (t *ServerTool) Server() string { return t.server.cfg.Name }

// RemoteName is the tool's own name on its server.
func (t *ServerTool) RemoteName() string { return t.remote }

// Call calls the tool with input (a JSON object) under the server's call
// timeout. Transport faults are errors; the tool's own failure is a result
// with IsError set.
func (t *ServerTool) Call(ctx context.Context, input json.RawMessage) (*sdk.CallToolResult, error) {
	var args map[string]any
	if len(input) > 0 && string(input) != "null" {
		if err := json.Unmarshal(input, &args); err != nil {
			return nil, fmt.Errorf("input is not a JSON object: %w", err)
		}
	}
	return t.server.call(ctx, t.remote, args)
}

// ShapeResult turns a tool result into the text the model gets: text joined,
// images and audio noted, resource links listed, embedded resources' text
// included; structured content is used when there is nothing else.
func ShapeResult(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, linkLine(c))
		case *sdk.EmbeddedResource:
			parts = append(parts, embeddedText(c))
		default:
			if raw, err := json.Marshal(c); err == nil {
				parts = append(parts, string(raw))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(raw))
		}
	}
	if len(parts) == 0 {
		return "(no output)"
	}
	return strings.Join(parts, "\n")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

func linkLine(l *sdk.ResourceLink) string {
	s := "[resource link: " + l.URI
	if l.Name != "" && l.Name != l.URI {
		s += " (" + l.Name + ")"
	}
	if l.MIMEType != "" {
		s += ", " + l.MIMEType
	}
	s += "]"
	if l.Description != "" {
		s += " " + l.Description
	}
	return s
}

func embeddedText(e *sdk.EmbeddedResource) string {
	r := e.Resource
	if r == nil {
		return "[resource]"
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource: %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
}
