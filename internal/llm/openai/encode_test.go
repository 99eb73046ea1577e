package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
)

func conversation() []llm.Message {
	return []llm.Message{
		llm.UserText("read two files"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockThinking, Text: "I need both files."},
			{Type: llm.BlockToolUse, ID: "toolu_01ABC", Name: "read_file", Input: json.RawMessage(`{"file_path":"a"}`)},
			{Type: llm.BlockToolUse, ID: "call-2", Name: "read_file", Input: json.RawMessage(`{"file_path":"b"}`)},
		}},
		{Role: llm.RoleUser, Content: []llm.Block{
			{Type: llm.BlockToolResult, ID: "toolu_01ABC", Content: "A"},
			{Type: llm.BlockToolResult, ID: "call-2", Content: "no such file", IsError: true},
			{Type: llm.BlockText, Text: "<system-reminder>note</system-reminder>"},
		}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Text: "done"}, {Type: llm.BlockText, Text: "Read them."}}},
	}
}

type wireReq struct {
	Model               string
	Messages            []map[string]json.RawMessage
	Tools               []wireToolDef
	StreamOptions       *streamOptions `json:"stream_options"`
	MaxTokens           *int           `json:"max_tokens"`
	MaxCompletionTokens *int           `json:"max_completion_tokens"`
	ReasoningEffort     string         `json:"reasoning_effort"`
}

func encode(t *testing.T, req *llm.Request, p Profile) wireReq {
	t.Helper()
	body, err := encodeRequest(req, p, true)
	if err != nil {
		t.Fatal(err)
	}
	var w wireReq
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func TestEncodeMessages(t *testing.T) {
	req := &llm.Request{Model: "deepseek-chat", MaxTokens: 1000, System: []llm.SystemBlock{{Text: "core", Cache: true}, {Text: "env"}}, Messages: conversation()}
	w := encode(t, req, Profiles["generic"])
	roles := []string{}
	for _, m := range w.Messages {
		roles = append(roles, str(m["role"]))
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,tool,user,assistant" {
		t.Fatalf("roles %s", got)
	}
	if str(w.Messages[0]["content"]) != "core\n\nenv" {
		t.Errorf("system %s", w.Messages[0]["content"])
	}
	var calls []wireToolCall
	_ = json.Unmarshal(w.Messages[2]["tool_calls"], &calls)
	if len(calls) != 2 || calls[0].ID != "toolu_01ABC" || calls[0].Type != "function" || str(calls[0].Function.Arguments) != `{"file_path":"a"}` {
		t.Errorf("tool calls %+v", calls)
	}
	if str(w.Messages[3]["tool_call_id"]) != "toolu_01ABC" || str(w.Messages[4]["tool_call_id"]) != "call-2" || !strings.HasPrefix(str(w.Messages[4]["content"]), "Error: ") {
		t.Errorf("tool results %s / %s", w.Messages[3], w.Messages[4])
	}
	if _, ok := w.Messages[2]["reasoning_content"]; ok {
		t.Error("generic servers must not get reasoning_content")
	}
	if str(w.Messages[6]["content"]) != "Read them." {
		t.Errorf("final assistant %s", w.Messages[6])
	}
	// The neutral history survives a round trip through the wire format.
	body, _ := encodeRequest(req, Profiles["generic"], true)
	back, _, _, err := ParseRequest(body)
	if err != nil || len(back.Messages) != 4 || len(back.Messages[2].Content) != 3 || back.Messages[2].Content[1].ID != "call-2" {
		t.Fatalf("round trip: %v %+v", err, back)
	}
}

func TestProfiles(t *testing.T) {
	req := func() *llm.Request {
		return &llm.Request{Model: "m", MaxTokens: 1000, Thinking: true, Messages: conversation(),
			Tools: []llm.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`{"$schema":"x","type":"object","additionalProperties":false,"properties":{"additionalProperties":{"type":"string"},"n":{"type":"object","additionalProperties":false}}}`)}}}
	}
	t.Run("openai", func(t *testing.T) {
		r := req()
		r.Model = "gpt-5"
		w := encode(t, r, Profiles["openai"])
		if w.MaxTokens != nil || w.MaxCompletionTokens == nil || *w.MaxCompletionTokens != 1000 {
			t.Errorf("openai wants max_completion_tokens: %v %v", w.MaxTokens, w.MaxCompletionTokens)
		}
		if string(w.Messages[1]["content"]) != "null" || w.ReasoningEffort != "medium" || w.StreamOptions == nil {
			t.Errorf("content %s effort %q options %v", w.Messages[1]["content"], w.ReasoningEffort, w.StreamOptions)
		}
	})
	t.Run("deepseek", func(t *testing.T) {
		w := encode(t, req(), Profiles["deepseek"])
		if w.MaxTokens == nil || w.MaxCompletionTokens != nil || w.ReasoningEffort != "" {
			t.Errorf("deepseek wants max_tokens only")
		}
		if str(w.Messages[1]["reasoning_content"]) != "I need both files." {
			t.Errorf("reasoning_content must be echoed on tool-call messages: %s", w.Messages[1])
		}
		if _, ok := w.Messages[5]["reasoning_content"]; ok {
			t.Errorf("only tool-call messages carry reasoning_content: %s", w.Messages[5])
		}
		if string(w.Messages[1]["content"]) != `""` {
			t.Errorf("content %s", w.Messages[1]["content"])
		}
	})
	t.Run("mistral ids", func(t *testing.T) {
		w := encode(t, req(), Profiles["mistral"])
		var calls []wireToolCall
		_ = json.Unmarshal(w.Messages[1]["tool_calls"], &calls)
		for i, c := range calls {
			if len(c.ID) != 9 || strings.Trim(c.ID, alnum) != "" {
				t.Errorf("id %q is not 9 alphanumerics", c.ID)
			}
			if got := str(w.Messages[2+i]["tool_call_id"]); got != c.ID {
				t.Errorf("result id %q does not match call id %q", got, c.ID)
			}
		}
		if calls[0].ID == calls[1].ID {
			t.Error("distinct ids collapsed")
		}
		if w.StreamOptions != nil {
			t.Error("mistral profile sends no stream_options")
		}
	})
	t.Run("gemini schema", func(t *testing.T) {
		w := encode(t, req(), Profiles["gemini"])
		s := string(w.Tools[0].Function.Parameters)
		if strings.Contains(s, "$schema") || strings.Count(s, "additionalProperties") != 1 || !strings.Contains(s, `"properties":{"additionalProperties":{"type":"string"}`) {
			t.Errorf("schema %s: keywords must go, property names stay", s)
		}
	})
	t.Run("tool limit", func(t *testing.T) {
		r := req()
		r.Tools = nil
		for i := 0; i < 129; i++ {
			r.Tools = append(r.Tools, llm.ToolSpec{Name: fmt.Sprint("t", i)})
		}
		if _, err := encodeRequest(r, Profiles["openai"], true); err == nil || !strings.Contains(err.Error(), "at most 128") {
			t.Fatalf("err = %v", err)
		}
		r.Tools = r.Tools[:128]
		if _, err := encodeRequest(r, Profiles["openai"], true); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("no tools means no tools key", func(t *testing.T) {
		body, _ := encodeRequest(&llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}}, Profiles["generic"], true)
		if strings.Contains(string(body), `"tools"`) || strings.Contains(string(body), "max_tokens") {
			t.Errorf("body %s", body)
		}
	})
}

func TestDetectProfile(t *testing.T) {
	tests := []struct{ url, model, want string }{
		{"https://api.openai.com/v1", "gpt-4o", "openai"},
		{"https://api.deepseek.com/v1", "deepseek-chat", "deepseek"},
		{"http://127.0.0.1:8000/v1", "deepseek-ai/DeepSeek-R1", "deepseek"},
		{"http://localhost:11434/v1", "qwen3", "ollama"},
		{"https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4", "openrouter"},
		{"https://api.mistral.ai/v1", "mistral-large", "mistral"},
		{"https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-pro", "gemini"},
		{"http://127.0.0.1:8080/v1", "llama-3", "generic"},
	}
	for _, tc := range tests {
		if got := DetectProfile(tc.url, tc.model).Name; got != tc.want {
			t.Errorf("DetectProfile(%s, %s) = %s, want %s", tc.url, tc.model, got, tc.want)
		}
	}
	if CheckProfile("deepseek") != nil || CheckProfile("") != nil || CheckProfile("nope") == nil {
		t.Error("CheckProfile")
	}
	c := New(Config{BaseURL: "http://localhost:11434/v1", Profile: "deepseek"})
	if c.ProfileFor("qwen").Name != "deepseek" {
		t.Error("a named profile overrides detection")
	}
}

// A call hew renamed (the server repeated call_0) goes out under the
// server's own id, on the call and on its result.
func TestEncodeSendsWireIDs(t *testing.T) {
	msgs := []llm.Message{
		llm.UserText("go"),
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "call_0_h1", WireID: "call_0", Name: "r", Input: json.RawMessage(`{}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: "call_0_h1", WireID: "call_0", Content: "ok"}}},
	}
	w := encode(t, &llm.Request{Model: "gpt-4o", Messages: msgs}, Profiles["generic"])
	var calls []wireToolCall
	_ = json.Unmarshal(w.Messages[1]["tool_calls"], &calls)
	if len(calls) != 1 || calls[0].ID != "call_0" || str(w.Messages[2]["tool_call_id"]) != "call_0" {
		t.Fatalf("wire ids: %+v / %s", calls, w.Messages[2])
	}
}
