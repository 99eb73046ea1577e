package agent

import (
	"encoding/json"
	"fmt"

	"github.com/hew-dev/hew/internal/llm"
)

// ValidateHistory checks the protocol invariant of a history: it starts
// with a user message, no message is empty, every tool_use id is unique and
// answered by exactly one tool_result at the start of the next (user)
// message in call order, no tool_result answers anything else, and the
// history does not end with unanswered calls. The loop uses it to refuse a
// broken compaction; the health probe after compaction can use it too.
func ValidateHistory(msgs []llm.Message) error {
	if len(msgs) > 0 && msgs[0].Role != llm.RoleUser {
		return fmt.Errorf("history starts with a %s message", msgs[0].Role)
	}
	ids := map[string]bool{}
	var open []llm.Block // calls of the previous assistant message
	for i, m := range msgs {
		if len(m.Content) == 0 {
			return fmt.Errorf("message %d is empty", i)
		}
		switch m.Role {
		case llm.RoleAssistant:
			if len(open) > 0 {
				return fmt.Errorf("message %d: the calls of message %d are unanswered", i, i-1)
			}
			for _, b := range m.Content {
				switch b.Type {
				case llm.BlockToolResult:
					return fmt.Errorf("message %d: tool_result in an assistant message", i)
				case llm.BlockToolUse:
					if b.ID == "" || ids[b.ID] {
						return fmt.Errorf("message %d: tool_use id %q is empty or repeated", i, b.ID)
					}
					ids[b.ID] = true
					if !json.Valid(b.Input) {
						return fmt.Errorf("message %d: tool_use %s has invalid JSON input", i, b.ID)
					}
					open = append(open, b)
				}
			}
		case llm.RoleUser:
			for j, b := range m.Content {
				if j < len(open) {
					if b.Type != llm.BlockToolResult || b.ID != open[j].ID {
						return fmt.Errorf("message %d: block %d should answer %s", i, j, open[j].ID)
					}
				} else if b.Type == llm.BlockToolResult {
					return fmt.Errorf("message %d: tool_result %q answers no call", i, b.ID)
				}
			}
			if len(m.Content) < len(open) {
				return fmt.Errorf("message %d: %d results for %d calls", i, len(m.Content), len(open))
			}
			open = nil
		default:
			return fmt.Errorf("message %d has unknown role %q", i, m.Role)
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("the history ends with %d unanswered calls", len(open))
	}
	return nil
}
