package memory

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/tools"
)

// ToolName is the model-facing memory tool.
const ToolName = "memory_write"

//go:embed memory_write.md
var toolDescription string

var toolSchema = json.RawMessage(`{"type":"object","properties":{"type":{"type":"string","enum":["user","feedback","project","reference"]},"name":{"type":"string","minLength":1,"description":"short title"},"description":{"type":"string","minLength":1,"description":"one line: when this memory is useful"},"text":{"type":"string","minLength":1,"description":"the memory, with its evidence"}},"required":["type","name","description","text"],"additionalProperties":false}`)

// Queue holds memories proposed during a turn; Flush writes them at the
// turn boundary, so what the model sees never changes under a running turn.
type Queue struct {
	Store *Store
	mu    sync.Mutex
	items []Memory
}

// Propose checks m (type, text, secrets) and queues it.
func (q *Queue) Propose(m Memory) error {
	if strings.TrimSpace(m.Body) == "" {
		return errors.New("memory_write: text is empty")
	}
	if !validType(m.Type) {
		return fmt.Errorf("memory_write: unknown type %q (want one of %s)", m.Type, strings.Join(Types, ", "))
	}
	if len(m.Body) > MaxBody {
		return fmt.Errorf("memory_write: text is %d bytes; a memory holds at most %d, keep the gist", len(m.Body), MaxBody)
	}
	if why := SecretReason(m.Name + "\n" + m.Description + "\n" + m.Body); why != "" {
		return fmt.Errorf("memory_write: refused: the text looks like it contains %s; secrets never go into memory", why)
	}
	q.mu.Lock()
	q.items = append(q.items, m)
	q.mu.Unlock()
	return nil
}

// Pending reports how many proposals wait for the turn boundary.
func (q *Queue) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Flush writes the queued memories, in order, and returns what was saved
// (and pruned from the index) and the errors of those that failed.
func (q *Queue) Flush() ([]AddResult, []error) {
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.mu.Unlock()
	var out []AddResult
	var errs []error
	for _, m := range items {
		res, err := q.Store.Add(m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, res)
	}
	return out, errs
}

// Tool is memory_write. It is deferred: its schema is sent only once the
// model loads it with tool_search, so the first request stays small.
type Tool struct{ Q *Queue }

// Name, Description, Schema, ReadOnly and Deferred implement tools.Tool and
// tools.Deferred. It changes nothing in the project, only queues a note.
func (*Tool) Name() string                  { return ToolName }
func (*Tool) Description() string           { return strings.TrimSpace(toolDescription) }
func (*Tool) Schema() json.RawMessage       { return toolSchema }
func (*Tool) ReadOnly(json.RawMessage) bool { return false }
func (*Tool) Deferred() bool                { return true }

type toolInput struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Text        string `json:"text"`
}

// Run queues the memory for the end of the turn.
func (t *Tool) Run(_ context.Context, _ *tools.Env, input json.RawMessage) (tools.Result, error) {
	var in toolInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("memory_write: decode input: %w", err)
	}
	m := Memory{Type: in.Type, Name: in.Name, Description: in.Description, Body: in.Text, Source: "model (memory_write)"}
	if err := t.Q.Propose(m); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: fmt.Sprintf("Queued: saved as %s when this turn ends; later sessions recall it.", m.File())}, nil
}
