package core

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fullRegistry is the registry of a session with every kind of tool hew
// has: the built-ins (as app/build.go registers them), a skill, and the
// session-bound tools (agent, plan mode, schedule_wakeup, memory_write).
// MCP tools are adapted from a server: internal/tools/mcp tests them.
func fullRegistry(t *testing.T, m *mcp.Manager) *tools.Registry {
	t.Helper()
	r := newRig(t)
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	s := r.session(t, func(o *Options) {
		o.Registry = reg
		o.Skills = []skills.Skill{{Name: "review", Description: "review a file", Source: "project", ModelInvocable: true, Body: "Review $ARGUMENTS."}}
		o.MCP = m
	})
	if m != nil {
		if err := s.Prepare(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// mcpServer is a Manager for one MCP server (over streamable HTTP) with one
// tool, so the registry holds an adapted server tool too.
func mcpServer(t *testing.T) *mcp.Manager {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "lookup", Description: "Looks a word up"},
		func(context.Context, *sdk.CallToolRequest, struct {
			Word string `json:"word"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "found"}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	src := mcp.Source{Scope: mcp.ScopeProject, Path: "/p/.mcp.json", Servers: map[string]json.RawMessage{
		"dict": json.RawMessage(`{"type":"http","url":"` + ts.URL + `"}`),
	}}
	m := mcp.NewManager(mcp.LoadConfig(mcp.ConfigOptions{Settings: []mcp.Source{src}}), mcp.Options{})
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// Every tool hew has — built-in, skill, agent, plan mode, schedule_wakeup,
// memory_write and an MCP server's — describes itself: it names its calls
// (tools.Summarizer) and what approving one is about (tools.Subjecter),
// has a description for the model, and an input schema that is a JSON
// Schema object the validator compiles. A tool added without them fails
// here.
func TestEveryToolDescribesItself(t *testing.T) {
	reg := fullRegistry(t, mcpServer(t))
	all := reg.All()
	var names []string
	for _, tl := range all {
		names = append(names, tl.Name())
	}
	for _, want := range []string{"read_file", "write_file", "edit_file", "list_files", "grep_search", "run_shell", "web_fetch",
		"todo_write", "tool_search", "skill", "agent", "enter_plan_mode", "exit_plan_mode", "schedule_wakeup", "memory_write", "mcp__dict__lookup"} {
		if !slices.Contains(names, want) {
			t.Errorf("the registry lacks %s (has %v)", want, names)
		}
	}
	for _, tl := range all {
		name := tl.Name()
		if _, ok := tl.(tools.Summarizer); !ok {
			t.Errorf("%s does not summarize its calls (tools.Summarizer)", name)
		}
		if _, ok := tl.(tools.Subjecter); !ok {
			t.Errorf("%s does not name what approving a call is about (tools.Subjecter)", name)
		}
		if strings.TrimSpace(tl.Description()) == "" {
			t.Errorf("%s has no description", name)
		}
		var obj struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(tl.Schema(), &obj); err != nil || obj.Type != "object" {
			t.Errorf("%s: schema is not a JSON object schema: %v %s", name, err, tl.Schema())
		}
		var js jsonschema.Schema
		if err := json.Unmarshal(tl.Schema(), &js); err != nil {
			t.Errorf("%s: schema does not parse: %v", name, err)
		} else if _, err := js.Resolve(nil); err != nil {
			t.Errorf("%s: schema does not compile: %v", name, err)
		}
		if got := tools.Summarize(tl, name, json.RawMessage(`{}`)); !strings.HasPrefix(got, name+"(") {
			t.Errorf("%s: summary of an empty call %q", name, got)
		}
		if !bytes.Equal(tl.Schema(), tl.Schema()) || tl.Description() != tl.Description() {
			t.Errorf("%s: name, description or schema differ between calls", name)
		}
	}
}

// The tool list sent to the model is pinned byte for byte: the visible
// tools in the order the model sees them, then every deferred tool as
// tool_search would load it. A change to a name, description or schema
// (or the order) shows here; run go test ./internal/core -update only when
// the change is intended.
func TestToolListGolden(t *testing.T) {
	reg := fullRegistry(t, nil)
	type spec struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
		Deferred    bool            `json:"deferred,omitempty"`
	}
	var list []spec
	for _, s := range reg.Specs() {
		list = append(list, spec{s.Name, s.Description, s.InputSchema, false})
	}
	for _, tl := range reg.Deferred() {
		list = append(list, spec{tl.Name(), tl.Description(), tl.Schema(), true})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(list); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tool_list.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("the tool list changed; if intended, run go test ./internal/core -run TestToolListGolden -update\n%s", buf.String())
	}
}
