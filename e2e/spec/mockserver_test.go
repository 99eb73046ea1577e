package spec

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// SPEC section 1/7: hew mock-server speaks both APIs, streaming and not,
// taking the scenario's turns in order across both.
func TestMockServerWire(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock(`{"turns":[
	  {"text":"turn one text","tool_calls":[{"name":"read_file","input":{"file_path":"x.txt"}}]},
	  {"text":"turn two text"},
	  {"text":"turn three text"},
	  {"text":"turn four text"}]}`)
	post := func(path, body string) (string, string) {
		t.Helper()
		resp, err := http.Post(ms.addr+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
		}
		return resp.Header.Get("Content-Type"), string(b)
	}
	_, body := post("/v1/messages", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`)
	var msg struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Text, Name string
			Input            map[string]any
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatalf("anthropic non-stream answer is not JSON: %s", body)
	}
	if msg.Type != "message" || msg.StopReason != "tool_use" || len(msg.Content) != 2 || msg.Content[0].Text != "turn one text" ||
		msg.Content[1].Name != "read_file" || msg.Content[1].Input["file_path"] != "x.txt" {
		t.Fatalf("anthropic non-stream answer: %s", body)
	}
	_, body = post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if !strings.Contains(body, `"turn two text"`) || !strings.Contains(body, `"chat.completion"`) {
		t.Fatalf("openai non-stream answer: %s", body)
	}
	ct, body := post("/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if !strings.HasPrefix(ct, "text/event-stream") || !strings.Contains(body, "message_stop") || sseText(body) != "turn three text" {
		t.Fatalf("anthropic stream (%s): %s", ct, body)
	}
	ct, body = post("/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if !strings.HasPrefix(ct, "text/event-stream") || !strings.Contains(body, "[DONE]") || sseText(body) != "turn four text" {
		t.Fatalf("openai stream (%s): %s", ct, body)
	}
}

// sseText joins the text deltas of an SSE body of either protocol.
func sseText(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ev struct {
			Delta struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(data), &ev) != nil {
			continue
		}
		if ev.Delta.Type == "text_delta" {
			b.WriteString(ev.Delta.Text)
		}
		for _, c := range ev.Choices {
			b.WriteString(c.Delta.Content)
		}
	}
	return b.String()
}
