package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
)

func history() []llm.Message {
	return []llm.Message{
		llm.UserText("read a"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockThinking, Text: "plan", Signature: "sig-1"},
			{Type: llm.BlockRedactedThinking, Data: "opaque=="},
			{Type: llm.BlockThinking, Text: "unsigned reasoning from another vendor"},
			{Type: llm.BlockText, Text: ""},
			{Type: llm.BlockToolUse, ID: "functions.read_file:0", Name: "read_file", Input: json.RawMessage(`{"file_path":"a"}`)},
		}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: "functions.read_file:0", Content: "hello", IsError: true}}},
	}
}

func decodeBody(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEncodeRequest(t *testing.T) {
	req := &llm.Request{
		Model: "claude-sonnet-4-5", MaxTokens: 8000, Thinking: true,
		System:   []llm.SystemBlock{{Text: "static core", Cache: true}, {Text: "dynamic env"}},
		Tools:    []llm.ToolSpec{{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "b"}},
		Messages: history(),
	}
	before, _ := json.Marshal(req.Messages)
	body, err := encodeRequest(req, true, encOpts{})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(req.Messages)
	if string(before) != string(after) {
		t.Fatal("encoding changed the stored history")
	}
	m := decodeBody(t, body)
	sys := m["system"].([]any)
	if sys[0].(map[string]any)["cache_control"] == nil || sys[1].(map[string]any)["cache_control"] != nil {
		t.Errorf("system cache_control: %v", sys)
	}
	tools := m["tools"].([]any)
	if tools[0].(map[string]any)["cache_control"] != nil || tools[1].(map[string]any)["cache_control"] == nil {
		t.Errorf("cache_control must be on the last tool only: %v", tools)
	}
	if tools[1].(map[string]any)["input_schema"] == nil {
		t.Error("missing schema must become an object schema")
	}
	msgs := m["messages"].([]any)
	asst := msgs[1].(map[string]any)["content"].([]any)
	types := []string{}
	for _, b := range asst {
		types = append(types, b.(map[string]any)["type"].(string))
	}
	if strings.Join(types, ",") != "thinking,redacted_thinking,tool_use" {
		t.Errorf("assistant blocks %v: unsigned thinking and empty text must be dropped", types)
	}
	if th := asst[0].(map[string]any); th["thinking"] != "plan" || th["signature"] != "sig-1" {
		t.Errorf("thinking not replayed verbatim: %v", th)
	}
	if asst[1].(map[string]any)["data"] != "opaque==" {
		t.Errorf("redacted thinking: %v", asst[1])
	}
	use := asst[2].(map[string]any)
	last := msgs[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	if use["id"] != last["tool_use_id"] || strings.ContainsAny(use["id"].(string), ".:") {
		t.Errorf("tool ids must be sanitised the same way: %v vs %v", use["id"], last["tool_use_id"])
	}
	if last["cache_control"] == nil || last["is_error"] != true || last["content"] != "hello" {
		t.Errorf("last block needs the rolling breakpoint: %v", last)
	}
	if asst[2].(map[string]any)["cache_control"] != nil {
		t.Error("only the last message carries the rolling breakpoint")
	}
	th := m["thinking"].(map[string]any)
	if th["type"] != "enabled" || th["budget_tokens"].(float64) != 4000 {
		t.Errorf("thinking %v", th)
	}
	if m["stream"] != true || m["max_tokens"].(float64) != 8000 {
		t.Errorf("stream/max_tokens: %v %v", m["stream"], m["max_tokens"])
	}
}

func TestUnsignedThinkingForCompatibleServers(t *testing.T) {
	req := &llm.Request{Model: "deepseek-chat", Messages: history()}
	body, _ := encodeRequest(req, true, encOpts{replayUnsigned: true})
	if !strings.Contains(string(body), "unsigned reasoning from another vendor") {
		t.Fatal("compatible servers must get their reasoning back")
	}
	if New(Config{}).official != true || New(Config{BaseURL: "https://api.deepseek.com/anthropic"}).official {
		t.Fatal("official API detection")
	}
}

func TestThinkingOnlyForCapableModels(t *testing.T) {
	tests := []struct {
		model    string
		max      int
		thinking bool
	}{
		{"claude-sonnet-4-5", 8000, true},
		{"claude-3-5-haiku-latest", 8000, false},
		{"some-unknown-model", 8000, false},
		{"claude-opus-4-1", 1024, false}, // no room for the minimum budget
	}
	for _, tc := range tests {
		body, _ := encodeRequest(&llm.Request{Model: tc.model, MaxTokens: tc.max, Thinking: true, Messages: []llm.Message{llm.UserText("x")}}, true, encOpts{})
		if got := decodeBody(t, body)["thinking"] != nil; got != tc.thinking {
			t.Errorf("%s: thinking sent = %v, want %v", tc.model, got, tc.thinking)
		}
	}
}

func TestPurposeTagAdded(t *testing.T) {
	body, _ := encodeRequest(&llm.Request{Model: "m", Purpose: llm.PurposeCompact, System: []llm.SystemBlock{{Text: "Summarise."}}, Messages: []llm.Message{llm.UserText("x")}}, true, encOpts{})
	req, _, err := ParseRequest(body)
	if err != nil || req.Purpose != llm.PurposeCompact {
		t.Fatalf("purpose %q, %v", req.Purpose, err)
	}
}

func TestHeaders(t *testing.T) {
	tests := []struct {
		cfg        Config
		key, token string
	}{
		{Config{APIKey: "k1"}, "k1", ""},
		{Config{AuthToken: "t1", APIKey: "k1"}, "", "Bearer t1"},
	}
	for _, tc := range tests {
		var got http.Header
		var path string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got, path = r.Header.Clone(), r.URL.Path
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":3}}}\n\n"+
				"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n"+
				"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
		}))
		tc.cfg.BaseURL = srv.URL + "/"
		_, err := New(tc.cfg).Stream(context.Background(), &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}}, nil)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got.Get("x-api-key") != tc.key || got.Get("Authorization") != tc.token || got.Get("anthropic-version") != APIVersion || path != "/v1/messages" {
			t.Errorf("headers %v path %s", got, path)
		}
	}
}

func TestMessagesURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:1":     "http://h:1/v1/messages",
		"http://h:1/":    "http://h:1/v1/messages",
		"http://h:1/v1":  "http://h:1/v1/messages",
		"https://x/gate": "https://x/gate/v1/messages",
	} {
		if got := MessagesURL(in); got != want {
			t.Errorf("MessagesURL(%q) = %q, want %q", in, got, want)
		}
	}
}

const okStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":1}}}

event: ping
data: {"type":"ping"}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"file_"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"path\":\"a\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"list_files","input":{}}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}

event: message_stop
data: {"type":"message_stop"}

`

func TestDecodeStream(t *testing.T) {
	var evs []llm.Event
	resp, err := decodeStream(strings.NewReader(okStream), func(e llm.Event) { evs = append(evs, e) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Block{
		{Type: llm.BlockThinking, Text: "hmm", Signature: "SIG"},
		{Type: llm.BlockText, Text: "Hi"},
		{Type: llm.BlockToolUse, ID: "toolu_1", Name: "read_file", Input: json.RawMessage(`{"file_path":"a"}`)},
		{Type: llm.BlockToolUse, ID: "toolu_2", Name: "list_files", Input: json.RawMessage(`{}`)},
	}
	if !reflect.DeepEqual(resp.Message.Content, want) {
		t.Fatalf("content\n%+v\nwant\n%+v", resp.Message.Content, want)
	}
	if resp.StopReason != llm.StopToolUse || resp.Model != "claude-x" {
		t.Errorf("stop %s model %s", resp.StopReason, resp.Model)
	}
	if resp.Usage != (llm.Usage{InputTokens: 10, OutputTokens: 42, CacheReadTokens: 100, CacheWriteTokens: 20}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, string(e.Type))
	}
	if got := strings.Join(kinds, " "); got != "thinking_delta text_delta tool_start tool_delta tool_delta tool_done tool_start tool_done usage" {
		t.Errorf("events: %s", got)
	}
}

func TestDecodeStreamFailures(t *testing.T) {
	head := strings.SplitN(okStream, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1", 2)[0]
	tests := []struct {
		name      string
		in        string
		retryable bool
		want      string
	}{
		{"cut before message_stop", head, true, "stream cut before message_stop"},
		{"cut inside a line", head + "event: content_block_start\ndata: {\"type\":\"con", true, "stream cut before message_stop"},
		{"overloaded event", head + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", true, "Overloaded"},
		{"api_error event", head + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal\"}}\n\n", true, "Internal"},
		{"invalid request event", head + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}\n\n", false, "bad"},
		{"not json", "event: message_start\ndata: {oops\n\n", false, "malformed stream: event \"message_start\": data is not JSON"},
		{"delta for unknown block", "data: {\"type\":\"content_block_delta\",\"index\":5,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n", false, "unknown block 5"},
		{"broken tool input", "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\",\"input\":{}}}\n\n" +
			"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\n" +
			"data: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\ndata: {\"type\":\"message_stop\"}\n\n", false, "tool call t (n): input is not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := decodeStream(strings.NewReader(tc.in), nil, nil)
			var re *retry.Error
			if err == nil || resp != nil || errors.As(err, &re) != tc.retryable || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (retryable %v), want %q retryable=%v", err, errors.As(err, &re), tc.want, tc.retryable)
			}
		})
	}
}

func TestTruncatedToolInputDropped(t *testing.T) {
	in := "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
		"data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\",\"input\":{}}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\\\"abc\"}}\n\n" +
		"data: {\"type\":\"content_block_stop\",\"index\":1}\n\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"}}\n\ndata: {\"type\":\"message_stop\"}\n\n"
	resp, err := decodeStream(strings.NewReader(in), nil, nil)
	if err != nil || resp.StopReason != llm.StopMaxTokens || len(resp.Message.ToolUses()) != 0 || resp.Message.Text() != "ok" {
		t.Fatalf("%v %+v", err, resp)
	}
}

func FuzzDecodeStream(f *testing.F) {
	f.Add(okStream)
	f.Add("data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\"}}\n\ndata: {\"type\":\"message_stop\"}\n\n")
	f.Add("event: error\ndata: {\"type\":\"error\"}\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		resp, err := decodeStream(strings.NewReader(in), func(llm.Event) {}, nil)
		if err == nil {
			for _, u := range resp.Message.ToolUses() {
				if !json.Valid(u.Input) {
					t.Fatalf("tool input %q returned as valid", u.Input)
				}
			}
		}
	})
}

// benchStream is a long answer: text, then tool calls whose arguments come
// in many small deltas — 2,000 chunks in all.
func benchStream(chunks int) string {
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":10}}}\n\n")
	n := 1
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for ; n < chunks/4; n++ {
		b.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"some words \"}}\n\n")
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	idx := 1
	for n < chunks-2 {
		fmt.Fprintf(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"write_file\",\"input\":{}}}\n\n", idx, idx)
		b.WriteString(fmt.Sprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"content\\\":\\\"\"}}\n\n", idx))
		for k := 0; k < 100; k++ {
			fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"line of code\\\\n\"}}\n\n", idx)
		}
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"}\"}}\n\n", idx)
		fmt.Fprintf(&b, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n", idx)
		n += 104
		idx++
	}
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5000}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return b.String()
}

func BenchmarkDecodeStream(b *testing.B) {
	const chunks = 2000
	in := benchStream(chunks)
	if _, err := decodeStream(strings.NewReader(in), nil, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := decodeStream(strings.NewReader(in), func(llm.Event) {}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/chunks, "ns/chunk")
}

func TestStopInferredWithoutMessageDelta(t *testing.T) {
	in := "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"list_files\",\"input\":{}}}\n\n" +
		"data: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_stop\"}\n\n"
	resp, err := decodeStream(strings.NewReader(in), nil, nil)
	if err != nil || resp.StopReason != llm.StopToolUse || len(resp.Message.ToolUses()) != 1 {
		t.Fatalf("%v %+v", err, resp)
	}
}
