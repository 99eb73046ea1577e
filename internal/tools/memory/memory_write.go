// Package memory is the memory_write tool: the model proposes a memory for
// later sessions, and it is queued in the session's memory.Queue until the
// turn ends (the store, recall and capture are internal/memory).
package memory

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"

	"github.com/hew-dev/hew/internal/memory"
	"github.com/hew-dev/hew/internal/tools"
)

// Name is the model-facing memory tool.
const Name = "memory_write"

//go:embed memory_write.md
var description embed.FS

var spec = tools.NewSpec(description, Name, `{"type":"object","properties":{"type":{"type":"string","enum":["user","feedback","project","reference"]},"name":{"type":"string","minLength":1,"description":"short title"},"description":{"type":"string","minLength":1,"description":"one line: when this memory is useful"},"text":{"type":"string","minLength":1,"description":"the memory, with its evidence"}},"required":["type","name","description","text"],"additionalProperties":false}`)

// Tool is memory_write. It is deferred: its schema is sent only once the
// model loads it with tool_search, so the first request stays small.
type Tool struct {
	tools.Spec
	q *memory.Queue
}

// New makes memory_write over the session's queue.
func New(q *memory.Queue) *Tool { return &Tool{Spec: spec, q: q} }

// ReadOnly and Deferred implement tools.Tool and tools.Deferred. It
// changes nothing in the project, only queues a note.
func (*Tool) ReadOnly(json.RawMessage) bool { return false }
func (*Tool) Deferred() bool                { return true }

type input struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Text        string `json:"text"`
}

// Run queues the memory for the end of the turn.
func (t *Tool) Run(_ context.Context, _ *tools.Env, raw json.RawMessage) (tools.Result, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return tools.Result{}, fmt.Errorf("memory_write: decode input: %w", err)
	}
	m := memory.Memory{Type: in.Type, Name: in.Name, Description: in.Description, Body: in.Text, Source: "model (memory_write)"}
	if err := t.q.Propose(m); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: fmt.Sprintf("Queued: saved as %s when this turn ends; later sessions recall it.", m.File())}, nil
}
