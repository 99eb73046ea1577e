package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
)

func noSleep() *retry.Policy {
	p := retry.Default()
	p.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	return p
}

func TestClientRequestAndJSONFallback(t *testing.T) {
	var auth, path string
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, path = r.Header.Get("Authorization"), r.URL.Path
		body, _ = io.ReadAll(r.Body)
		// A server that ignores stream:true and answers one JSON object.
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"<think>hm</think>Fine.","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"file_path\":\"a\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`)
	}))
	defer srv.Close()
	c := New(Config{APIKey: "sk-test", BaseURL: srv.URL + "/v1/", Retry: noSleep()})
	var evs []llm.Event
	resp, err := c.Stream(context.Background(), &llm.Request{Model: "qwen3", Messages: []llm.Message{llm.UserText("x")}}, func(e llm.Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer sk-test" || path != "/v1/chat/completions" {
		t.Errorf("auth %q path %q", auth, path)
	}
	if !strings.Contains(string(body), `"stream":true`) || !strings.Contains(string(body), `"include_usage":true`) {
		t.Errorf("body %s", body)
	}
	checkResponse(t, resp, evs, "hm", "Fine.", []wantCall{{"c1", "read_file", `{"file_path":"a"}`}}, llm.StopToolUse)
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		status    int
		body      string
		header    string
		want      string
		attempts  int
		retryWait time.Duration
	}{
		{400, `{"error":{"message":"Unsupported parameter: 'max_tokens'","type":"invalid_request_error","code":"unsupported_parameter"}}`, "", "400 (invalid_request_error): Unsupported parameter: 'max_tokens'", 1, 0},
		{401, `{"error":"bad key"}`, "", "401: bad key", 1, 0},
		{404, `not found here`, "", "404: not found here", 1, 0},
		{429, `{"error":{"message":"slow down","type":"rate_limit"}}`, "3", "429 (rate_limit): slow down (after 3 retries)", 4, 3 * time.Second},
		{503, ``, "", "503: Service Unavailable (after 3 retries)", 4, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n++
				if tc.header != "" {
					w.Header().Set("Retry-After", tc.header)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			var waits []time.Duration
			pol := retry.Default()
			pol.Sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			_, err := New(Config{BaseURL: srv.URL, Retry: pol}).Stream(context.Background(), &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}}, nil)
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.Status != tc.status || !strings.HasSuffix(err.Error(), tc.want) || n != tc.attempts {
				t.Fatalf("err %v attempts %d, want %q after %d", err, n, tc.want, tc.attempts)
			}
			if tc.retryWait > 0 && (len(waits) == 0 || waits[0] != tc.retryWait) {
				t.Errorf("waits %v", waits)
			}
		})
	}
}

func TestIdleTimeoutRetried(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 { // a hung server: headers, then silence
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"awake\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	var evs []llm.Event
	resp, err := New(Config{BaseURL: srv.URL, Retry: noSleep(), IdleTimeout: 200 * time.Millisecond}).Stream(context.Background(),
		&llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}}, func(e llm.Event) { evs = append(evs, e) })
	if err != nil || resp.Message.Text() != "awake" || n < 2 {
		t.Fatalf("%v %+v attempts %d", err, resp, n)
	}
	if evs[0].Type != llm.EvRetry || !errors.Is(evs[0].Err, retry.ErrIdle) {
		t.Fatalf("first event %+v", evs[0])
	}
}

func FuzzDecodeStream(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.sse")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(string(data), true)
	}
	f.Fuzz(func(t *testing.T, in string, tags bool) {
		p := Profiles["generic"]
		p.ThinkTags = tags
		resp, err := decodeStream(strings.NewReader(in), p, func(llm.Event) {}, nil)
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, u := range resp.Message.ToolUses() {
			if !json.Valid(u.Input) || u.Input[0] != '{' || u.Name == "" || u.ID == "" || ids[u.ID] {
				t.Fatalf("unusable tool call returned: %+v", u)
			}
			ids[u.ID] = true
		}
	})
}

// benchStream is a long answer: text, then tool calls whose arguments come
// in many small deltas — 2,000 chunks in all.
func benchStream(chunks int) string {
	var b strings.Builder
	n := 0
	for ; n < chunks/4; n++ {
		b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"some words "},"finish_reason":null}]}` + "\n\n")
	}
	for k := 0; n < chunks-2; k++ {
		fmt.Fprintf(&b, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"write_file","arguments":"{\"content\":\""}}]},"finish_reason":null}]}`+"\n\n", k, k)
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":"line of code\\n"}}]},"finish_reason":null}]}`+"\n\n", k)
		}
		fmt.Fprintf(&b, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":"\"}"}}]},"finish_reason":null}]}`+"\n\n", k)
		n += 102
	}
	b.WriteString(`data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString(`data: {"id":"c","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5000}}` + "\n\ndata: [DONE]\n\n")
	return b.String()
}

func BenchmarkDecodeStream(b *testing.B) {
	const chunks = 2000
	in := benchStream(chunks)
	resp, err := decodeStream(strings.NewReader(in), Profiles["generic"], nil, nil)
	if err != nil || len(resp.Message.ToolUses()) == 0 {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := decodeStream(strings.NewReader(in), Profiles["generic"], func(llm.Event) {}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/chunks, "ns/chunk")
}

func TestConnectionDroppedBeforeHeadersRetried(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // reset before any response
			}
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"back\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	var retries int
	resp, err := New(Config{BaseURL: srv.URL, Retry: noSleep()}).Stream(context.Background(),
		&llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}}, func(e llm.Event) {
			if e.Type == llm.EvRetry {
				retries++
			}
		})
	if err != nil || resp.Message.Text() != "back" || retries != 1 {
		t.Fatalf("%v %+v retries %d", err, resp, retries)
	}
	// No usage from the server: an estimate, never zero, so budgets work.
	if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens != 1 {
		t.Errorf("usage %+v", resp.Usage)
	}
}
