package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func builtinRegistry() *Registry {
	r := NewRegistry()
	RegisterBuiltins(r)
	return r
}

func TestValidateNamesWrongField(t *testing.T) {
	r := builtinRegistry()
	cases := []struct {
		tool, input string
		field       string
		problem     string
	}{
		{"read_file", `{}`, "file_path", "required field is missing"},
		{"read_file", `{"file_path": 7}`, "file_path", "must be a string, got integer 7"},
		{"read_file", `{"file_path": "a", "offset": "10"}`, "offset", "must be an integer"},
		{"read_file", `{"file_path": "a", "offset": 1.5}`, "offset", "must be an integer, got number 1.5"},
		{"read_file", `{"file_path": "a", "offset": 0}`, "offset", "must be >= 1, got 0"},
		{"read_file", `{"file_path": "a", "path": "b"}`, "path", "unknown field (allowed: file_path, limit, offset)"},
		{"edit_file", `{"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "yes"}`, "replace_all", "must be a boolean"},
		{"todo_write", `{"todos": [{"content": "a", "status": "done"}]}`, "todos[0].status", `must be one of "pending", "in_progress", "completed", got string "done"`},
		{"todo_write", `{"todos": [{"content": "a", "status": "pending"}, {"content": "b"}]}`, "todos[1].status", "required field is missing"},
		{"grep_search", `{"pattern": "x", "output_mode": "lines"}`, "output_mode", "must be one of"},
		{"grep_search", `{"pattern": ""}`, "pattern", "at least 1 character"},
		{"run_shell", `{"command": "ls", "timeout": 700000}`, "timeout", "must be <= 600000"},
		{"web_fetch", `{"url": ["a"]}`, "url", "must be a string, got array"},
	}
	for _, tc := range cases {
		err := r.Validate(tc.tool, json.RawMessage(tc.input))
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s %s: got %v, want ValidationError", tc.tool, tc.input, err)
			continue
		}
		found := false
		for _, is := range ve.Issues {
			if is.Field == tc.field && strings.Contains(is.Problem, tc.problem) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s %s: issues %+v lack %s: %s", tc.tool, tc.input, ve.Issues, tc.field, tc.problem)
		}
		if !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "invalid input for "+tc.tool) {
			t.Errorf("message %q does not name the field", err)
		}
	}
}

func TestValidateAcceptsGoodInput(t *testing.T) {
	r := builtinRegistry()
	good := map[string]string{
		"read_file":   `{"file_path": "a.go", "offset": 10, "limit": 5}`,
		"write_file":  `{"file_path": "a.go", "content": ""}`,
		"edit_file":   `{"file_path": "a.go", "old_string": "a", "new_string": "b", "replace_all": true}`,
		"list_files":  ``,
		"grep_search": `{"pattern": "x", "-i": true, "-C": 2, "output_mode": "content", "head_limit": 10}`,
		"run_shell":   `{"command": "ls", "timeout": 1000, "description": "list"}`,
		"web_fetch":   `{"url": "https://example.invalid/"}`,
		"todo_write":  `{"todos": []}`,
		"tool_search": `{"query": "select:x"}`,
	}
	for name, in := range good {
		if err := r.Validate(name, json.RawMessage(in)); err != nil {
			t.Errorf("%s %s: %v", name, in, err)
		}
	}
	if err := r.Validate("nope", nil); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown tool: %v", err)
	}
	for _, bad := range []string{`[1]`, `{"file_path":`, `"x"`} {
		if err := r.Validate("read_file", json.RawMessage(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// fakeTool lets tests register tools with arbitrary schemas.
type fakeTool struct {
	name, desc string
	schema     string
	deferred   bool
}

func (f fakeTool) Name() string                  { return f.name }
func (f fakeTool) Description() string           { return f.desc }
func (f fakeTool) Schema() json.RawMessage       { return json.RawMessage(f.schema) }
func (f fakeTool) ReadOnly(json.RawMessage) bool { return true }
func (f fakeTool) Deferred() bool                { return f.deferred }
func (f fakeTool) Run(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{Content: "ran " + f.name}, nil
}

func TestValidateUncompilableSchemaPasses(t *testing.T) {
	r := NewRegistry()
	r.Register(fakeTool{name: "mcp__x__y", schema: `{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}`})
	if err := r.Validate("mcp__x__y", json.RawMessage(`{"a": 1}`)); err != nil {
		t.Errorf("exotic schema blocked the call: %v", err)
	}
	// Nested $defs/$ref schemas (typical of MCP servers) are still checked.
	r.Register(fakeTool{name: "refs", schema: `{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"$defs":{"P":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}}`})
	if err := r.Validate("refs", json.RawMessage(`{"p": {}}`)); err == nil || !strings.Contains(err.Error(), "p") {
		t.Errorf("ref schema: %v", err)
	}
}

func TestSpecsAreStableBytes(t *testing.T) {
	a, _ := json.Marshal(builtinRegistry().Specs())
	b, _ := json.Marshal(builtinRegistry().Specs())
	if !bytes.Equal(a, b) {
		t.Fatal("tool list differs between registries")
	}
	want := []string{"read_file", "write_file", "edit_file", "list_files", "grep_search", "run_shell", "web_fetch", "todo_write", "tool_search"}
	r := builtinRegistry()
	if got := strings.Join(r.Names(), ","); got != strings.Join(want, ",") {
		t.Errorf("names %s", got)
	}
	for _, s := range r.Specs() {
		if len(s.Description) < 40 {
			t.Errorf("%s: description too short: %q", s.Name, s.Description)
		}
		var m map[string]any
		if err := json.Unmarshal(s.InputSchema, &m); err != nil || m["type"] != "object" {
			t.Errorf("%s: schema %s", s.Name, s.InputSchema)
		}
	}
	readOnly := map[string]bool{"read_file": true, "list_files": true, "grep_search": true, "web_fetch": true, "tool_search": true}
	for _, tl := range r.All() {
		if tl.ReadOnly(nil) != readOnly[tl.Name()] {
			t.Errorf("%s: ReadOnly=%v", tl.Name(), tl.ReadOnly(nil))
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	r := builtinRegistry()
	in := json.RawMessage(`{"file_path": "a.go", "old_string": "a", "new_string": "b", "replace_all": true}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Validate("edit_file", in); err != nil {
			b.Fatal(err)
		}
	}
}

func TestValidateConcurrent(t *testing.T) {
	r := builtinRegistry()
	done := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func(i int) {
			var err error
			for j := 0; j < 50 && err == nil; j++ {
				if e := r.Validate("read_file", json.RawMessage(`{"file_path":"a"}`)); e != nil {
					err = e
				}
				if e := r.Validate("read_file", json.RawMessage(`{}`)); e == nil {
					err = errors.New("missing field accepted")
				}
			}
			done <- err
		}(i)
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
