package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/anthropic"
	"github.com/hew-dev/hew/internal/tools"
)

// sseTransport answers every Messages API request in memory: odd requests
// with one read_file call, even ones with a short text. It reads the whole
// body, as a server would, so encoding is measured, not skipped.
type sseTransport struct{ n atomic.Int64 }

func (t *sseTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	req.Body.Close()
	k := t.n.Add(1)
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4\",\"usage\":{\"input_tokens\":10}}}\n\n")
	if k%2 == 1 {
		fmt.Fprintf(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_b%d\",\"name\":\"noop\",\"input\":{}}}\n\n", k)
		b.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"file_path\\\":\\\"a.go\\\"}\"}}\n\n")
		b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
		b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n")
	} else {
		b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		b.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"done\"}}\n\n")
		b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
		b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n")
	}
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(b.String())), Request: req}, nil
}

// benchHistory is a conversation of n messages with 1 KB tool results.
func benchHistory(n int) []llm.Message {
	var h []llm.Message
	for i := 0; len(h) < n; i++ {
		id := fmt.Sprintf("toolu_h%d", i)
		h = append(h, llm.UserText(fmt.Sprintf("step %d", i)))
		h = append(h, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: id, Name: "noop", Input: json.RawMessage(`{"file_path":"a.go"}`)}}})
		h = append(h, llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: id, Content: strings.Repeat("package x // code\n", 56)}}})
		h = append(h, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "done"}}})
	}
	return h[:n]
}

// BenchmarkRoundTripGrowingHistory is the whole cost of a model request
// through the real Anthropic adapter (encoding, streaming decode, loop,
// tool pipeline) with 10, 100 and 1,000 messages already in the history;
// issue 12.17. Each iteration is a turn of two requests on a history that
// grows by four messages, reset every 50 turns so the size stays near n.
func BenchmarkRoundTripGrowingHistory(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("%d", n), func(b *testing.B) {
			reg := tools.NewRegistry()
			reg.Register(&agenttest.Tool{ToolName: "noop", RO: true})
			prov := anthropic.New(anthropic.Config{APIKey: "k", BaseURL: "http://bench.invalid", HTTPClient: &http.Client{Transport: &sseTransport{}}})
			a, err := New(Config{Provider: prov, Model: "claude-sonnet-4", Tools: reg, Emit: func(Event) {},
				Env: &tools.Env{Root: b.TempDir(), StateDir: b.TempDir()}})
			if err != nil {
				b.Fatal(err)
			}
			base := benchHistory(n)
			a.SetHistory(base)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%50 == 49 {
					a.SetHistory(base)
				}
				if res := a.Run(ctx, "go"); res.StopReason != StopCompleted {
					b.Fatalf("stop = %s (%s)", res.StopReason, res.Err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/request")
		})
	}
}
