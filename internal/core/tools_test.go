package core

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fullRegistry is the registry of a session with every kind of tool hew
// has: the built-ins (as app/build.go registers them), a skill, and the
// session-bound tools (agent, plan mode, schedule_wakeup, memory_write).
// MCP tools are adapted from a server: internal/tools/mcp tests them.
func fullRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	r := newRig(t)
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	r.session(t, func(o *Options) {
		o.Registry = reg
		o.Skills = []skills.Skill{{Name: "review", Description: "review a file", Source: "project", ModelInvocable: true, Body: "Review $ARGUMENTS."}}
	})
	return reg
}

// The tool list sent to the model is pinned byte for byte: the visible
// tools in the order the model sees them, then every deferred tool as
// tool_search would load it. A change to a name, description or schema
// (or the order) shows here; run go test ./internal/core -update only when
// the change is intended.
func TestToolListGolden(t *testing.T) {
	reg := fullRegistry(t)
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
