package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

// ParseRequest decodes a Chat Completions request body into neutral form:
// system messages join the system prompt, consecutive tool messages become
// one user message of tool results. The mock server uses it.
func ParseRequest(body []byte) (req *llm.Request, stream, includeUsage bool, err error) {
	var w struct {
		Model    string `json:"model"`
		Messages []struct {
			Role             string          `json:"role"`
			Content          json.RawMessage `json:"content"`
			ReasoningContent string          `json:"reasoning_content"`
			ToolCalls        []wireToolCall  `json:"tool_calls"`
			ToolCallID       string          `json:"tool_call_id"`
		} `json:"messages"`
		Tools               []wireToolDef  `json:"tools"`
		Stream              bool           `json:"stream"`
		StreamOptions       *streamOptions `json:"stream_options"`
		MaxTokens           int            `json:"max_tokens"`
		MaxCompletionTokens int            `json:"max_completion_tokens"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, false, false, fmt.Errorf("request body is not valid JSON: %w", err)
	}
	req = &llm.Request{Model: w.Model, MaxTokens: max(w.MaxTokens, w.MaxCompletionTokens)}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters})
	}
	for i, m := range w.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system", "developer":
			req.System = append(req.System, llm.SystemBlock{Text: text})
		case "tool":
			b := llm.Block{Type: llm.BlockToolResult, ID: m.ToolCallID, Content: text}
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.RoleUser && onlyResults(req.Messages[n-1]) {
				req.Messages[n-1].Content = append(req.Messages[n-1].Content, b)
			} else {
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Block{b}})
			}
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant}
			if m.ReasoningContent != "" {
				msg.Content = append(msg.Content, llm.Block{Type: llm.BlockThinking, Text: m.ReasoningContent})
			}
			if text != "" {
				msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: text})
			}
			for k, tc := range m.ToolCalls {
				var args string
				if json.Unmarshal(tc.Function.Arguments, &args) != nil {
					return nil, false, false, fmt.Errorf("messages[%d].tool_calls[%d].function.arguments must be a JSON string", i, k)
				}
				in, ok := finalArgs(args)
				if !ok {
					return nil, false, false, fmt.Errorf("messages[%d].tool_calls[%d].function.arguments is not a JSON object", i, k)
				}
				msg.Content = append(msg.Content, llm.Block{Type: llm.BlockToolUse, ID: tc.ID, Name: tc.Function.Name, Input: in})
			}
			req.Messages = append(req.Messages, msg)
		default:
			b := llm.Block{Type: llm.BlockText, Text: text}
			if n := len(req.Messages); m.Role == "user" && n > 0 && req.Messages[n-1].Role == llm.RoleUser && onlyResults(req.Messages[n-1]) {
				// Text after tool messages belongs to the same user turn.
				req.Messages[n-1].Content = append(req.Messages[n-1].Content, b)
				continue
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.Role(m.Role), Content: []llm.Block{b}})
		}
	}
	if len(req.System) > 0 {
		req.Purpose = llm.PurposeFromText(req.System[0].Text)
	} else {
		req.Purpose = llm.PurposeMain
	}
	return req, w.Stream, w.StreamOptions != nil && w.StreamOptions.IncludeUsage, nil
}

func onlyResults(m llm.Message) bool {
	for _, b := range m.Content {
		if b.Type != llm.BlockToolResult {
			return false
		}
	}
	return true
}

// contentText flattens string or array-of-parts content to text.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
