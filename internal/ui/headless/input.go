package headless

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// InputError is a --input-format stream-json line that is not a user
// message; the conversation answers it with an error result and goes on.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return "input line: " + e.Reason }

// inputMessage is one --input-format stream-json line, Claude Code's shape:
// {"type":"user","message":{"role":"user","content":"…" | [{"type":"text","text":"…"}]}}.
type inputMessage struct {
	Type    string `json:"type"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// parseInputLine returns the text of one input line, or why it is not a
// user message.
func parseInputLine(line []byte) (string, error) {
	var m inputMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return "", fmt.Errorf("not a JSON object: %v", err)
	}
	if m.Type != "user" {
		return "", fmt.Errorf(`"type" is %q; only "user" messages are read`, m.Type)
	}
	if m.Message.Role != "" && m.Message.Role != "user" {
		return "", fmt.Errorf(`"message.role" is %q, want "user"`, m.Message.Role)
	}
	var s string
	if json.Unmarshal(m.Message.Content, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return "", errors.New("the message is empty")
		}
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Message.Content, &blocks); err != nil {
		return "", errors.New(`"message.content" must be a string or a list of {"type":"text","text":…} blocks`)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type != "text" {
			return "", fmt.Errorf("content blocks of type %q are not supported (only text)", b.Type)
		}
		parts = append(parts, b.Text)
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the message is empty")
	}
	return text, nil
}
