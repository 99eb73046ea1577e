package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// TodoWrite is the todo_write tool.
type TodoWrite struct{ Spec }

var todoWriteSpec = builtin("todo_write", `{
 "type": "object",
 "properties": {
  "todos": {
   "type": "array",
   "description": "The complete task list",
   "items": {
    "type": "object",
    "properties": {
     "content": {"type": "string", "minLength": 1, "description": "What to do"},
     "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
    },
    "required": ["content", "status"],
    "additionalProperties": false
   }
  }
 },
 "required": ["todos"],
 "additionalProperties": false
}`)

type todoWriteInput struct {
	Todos []Todo `json:"todos"`
}

// ReadOnly implements Tool.
func (TodoWrite) ReadOnly(json.RawMessage) bool { return false }

// SessionOnly implements SessionOnly: the list belongs to the session.
func (TodoWrite) SessionOnly() bool { return true }

// ChangesNoFiles implements FileNeutral: the list lives in the session.
func (TodoWrite) ChangesNoFiles() bool { return true }

// Check refuses blank items and unknown statuses.
func (TodoWrite) Check(_ *Env, input json.RawMessage) error {
	in, err := decode[todoWriteInput](input)
	if err != nil {
		return err
	}
	for i, t := range in.Todos {
		if strings.TrimSpace(t.Content) == "" {
			return fmt.Errorf("todo_write: item %d has empty content; describe the task", i+1)
		}
		switch t.Status {
		case "pending", "in_progress", "completed":
		default:
			return fmt.Errorf("todo_write: item %d has status %q; use pending, in_progress or completed", i+1, t.Status)
		}
	}
	return nil
}

// Run returns the list for the model and sets Result.Todos for the UI.
func (t TodoWrite) Run(_ context.Context, env *Env, input json.RawMessage) (Result, error) {
	if err := t.Check(env, input); err != nil {
		return Result{}, err
	}
	in, _ := decode[todoWriteInput](input)
	counts := map[string]int{}
	var b strings.Builder
	for _, td := range in.Todos {
		counts[td.Status]++
		mark := map[string]string{"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}[td.Status]
		fmt.Fprintf(&b, "\n%s %s", mark, td.Content)
	}
	todos := append([]Todo{}, in.Todos...)
	head := fmt.Sprintf("Todo list updated: %d items (%d completed, %d in progress, %d pending).",
		len(todos), counts["completed"], counts["in_progress"], counts["pending"])
	if len(todos) == 0 {
		head = "Todo list cleared."
	}
	return Result{Content: head + b.String(), Todos: todos}, nil
}

// Summary implements Summarizer: how many items the list has.
func (TodoWrite) Summary(input json.RawMessage) string {
	if l, ok := fields(input)["todos"].([]any); ok {
		return fmt.Sprintf("%d items", len(l))
	}
	return ""
}

// Subject implements Subjecter: the whole list.
func (TodoWrite) Subject(input json.RawMessage) string { return string(input) }
