package llm

import (
	"encoding/json"
	"fmt"
)

// ValidateHistory checks the protocol invariant of a history: it starts
// with a user message, no message is empty, every tool_use id is unique and
// answered by exactly one tool_result at the start of the next (user)
// message in call order, no tool_result answers anything else, and the
// history does not end with unanswered calls. It is the one validator of
// the neutral history: the loop refuses a broken compaction with it,
// compaction's health probe and session repair are checked against it, and
// the tests' pairing checks call it.
func ValidateHistory(msgs []Message) error {
	if len(msgs) > 0 && msgs[0].Role != RoleUser {
		return fmt.Errorf("history starts with a %s message", msgs[0].Role)
	}
	ids := map[string]bool{}
	var open []Block // calls of the previous assistant message
	for i, m := range msgs {
		if len(m.Content) == 0 {
			return fmt.Errorf("message %d is empty", i)
		}
		switch m.Role {
		case RoleAssistant:
			if len(open) > 0 {
				return fmt.Errorf("message %d: the calls of message %d are unanswered", i, i-1)
			}
			for _, b := range m.Content {
				switch b.Type {
				case BlockToolResult:
					return fmt.Errorf("message %d: tool_result in an assistant message", i)
				case BlockToolUse:
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
		case RoleUser:
			for j, b := range m.Content {
				if j < len(open) {
					if b.Type != BlockToolResult || b.ID != open[j].ID {
						return fmt.Errorf("message %d: block %d should answer %s", i, j, open[j].ID)
					}
				} else if b.Type == BlockToolResult {
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
