package openai

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

type wireFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
}

type wireToolDef struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireRequest struct {
	Model               string         `json:"model"`
	Messages            []wireMessage  `json:"messages"`
	Tools               []wireToolDef  `json:"tools,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// encodeRequest builds the Chat Completions body for req under profile p.
func encodeRequest(req *llm.Request, p Profile, stream bool) ([]byte, error) {
	w := wireRequest{Model: req.Model, Stream: stream}
	if stream && p.StreamUsage {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	limit := req.MaxTokens
	if limit == 0 {
		if info := llm.LookupModel(req.Model); info.Known {
			limit = info.MaxOutput
		}
	}
	switch p.MaxTokensField {
	case "max_tokens":
		w.MaxTokens = limit
	case "max_completion_tokens":
		w.MaxCompletionTokens = limit
	}
	if req.Thinking && p.ReasoningEffort && reasoningModel(req.Model) {
		w.ReasoningEffort = "medium"
	}
	if p.MaxTools > 0 && len(req.Tools) > p.MaxTools {
		return nil, fmt.Errorf("openai: %d tools offered, but %s servers accept at most %d", len(req.Tools), p.Name, p.MaxTools)
	}
	for _, t := range req.Tools {
		var d wireToolDef
		d.Type = "function"
		d.Function.Name = t.Name
		d.Function.Description = t.Description
		d.Function.Parameters = stripSchema(t.InputSchema, p.StripSchemaKeys)
		w.Tools = append(w.Tools, d)
	}
	var sys []string
	for _, s := range llm.TaggedSystem(req) {
		if s.Text != "" {
			sys = append(sys, s.Text)
		}
	}
	if len(sys) > 0 {
		w.Messages = append(w.Messages, wireMessage{Role: "system", Content: jsonString(strings.Join(sys, "\n\n"))})
	}
	for _, m := range req.Messages {
		w.Messages = append(w.Messages, encodeMessage(m, p)...)
	}
	body, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	return body, nil
}

// reasoningModel reports OpenAI models that take reasoning_effort.
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	return strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") || strings.HasPrefix(m, "o4") || strings.HasPrefix(m, "gpt-5")
}

// encodeMessage turns one neutral message into one or more wire messages:
// tool results become role "tool" messages, in order, before any user text.
func encodeMessage(m llm.Message, p Profile) []wireMessage {
	if m.Role == llm.RoleAssistant {
		var text, reasoning strings.Builder
		var calls []wireToolCall
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockText:
				text.WriteString(b.Text)
			case llm.BlockThinking:
				reasoning.WriteString(b.Text)
			case llm.BlockToolUse:
				in := b.Input
				if len(bytes.TrimSpace(in)) == 0 {
					in = json.RawMessage("{}")
				}
				calls = append(calls, wireToolCall{ID: mapID(b.WireCallID(), p), Type: "function",
					Function: wireFunction{Name: b.Name, Arguments: jsonString(string(in))}})
			}
		}
		wm := wireMessage{Role: "assistant", ToolCalls: calls}
		switch {
		case text.Len() > 0 || len(calls) == 0:
			wm.Content = jsonString(text.String())
		case p.ToolCallContent == "null":
			wm.Content = json.RawMessage("null")
		case p.ToolCallContent == "empty":
			wm.Content = jsonString("")
		}
		if len(calls) > 0 && p.EchoReasoning {
			wm.ReasoningContent = reasoning.String()
		}
		return []wireMessage{wm}
	}
	var out []wireMessage
	var parts []map[string]any
	var text strings.Builder
	hasImage := false
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockToolResult:
			c := b.Content
			if b.IsError && !strings.HasPrefix(c, "Error") {
				c = "Error: " + c
			}
			out = append(out, wireMessage{Role: "tool", ToolCallID: mapID(b.WireCallID(), p), Content: jsonString(c)})
		case llm.BlockText:
			text.WriteString(b.Text)
			parts = append(parts, map[string]any{"type": "text", "text": b.Text})
		case llm.BlockImage:
			hasImage = true
			parts = append(parts, map[string]any{"type": "image_url",
				"image_url": map[string]string{"url": "data:" + b.MediaType + ";base64," + b.Data}})
		}
	}
	switch {
	case hasImage:
		c, _ := json.Marshal(parts)
		out = append(out, wireMessage{Role: "user", Content: c})
	case len(parts) > 0:
		out = append(out, wireMessage{Role: "user", Content: jsonString(text.String())})
	case len(out) == 0:
		out = append(out, wireMessage{Role: "user", Content: jsonString("")})
	}
	return out
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// mapID rewrites a tool call id into the profile's required format. The map
// is a pure function of the id, so a call and its result always agree.
func mapID(id string, p Profile) string {
	if p.ToolIDFormat != "alnum9" {
		return id
	}
	if len(id) == 9 && strings.Trim(id, alnum) == "" {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	b := make([]byte, 9)
	for i := range b {
		b[i] = alnum[int(sum[i])%len(alnum)]
	}
	return string(b)
}

// stripSchema removes keys some servers reject, at every depth. Property
// names are kept even when they equal a stripped keyword.
func stripSchema(schema json.RawMessage, keys []string) json.RawMessage {
	if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if len(keys) == 0 {
		return schema
	}
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return schema
	}
	drop := map[string]bool{}
	for _, k := range keys {
		drop[k] = true
	}
	v = strip(v, drop, false)
	out, err := json.Marshal(v)
	if err != nil {
		return schema
	}
	return out
}

func strip(v any, drop map[string]bool, names bool) any {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if !names && drop[k] {
				delete(t, k)
				continue
			}
			t[k] = strip(c, drop, !names && (k == "properties" || k == "$defs" || k == "definitions"))
		}
	case []any:
		for i, c := range t {
			t[i] = strip(c, drop, false)
		}
	}
	return v
}
