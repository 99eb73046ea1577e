package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/anthropic"
	"github.com/hew-dev/hew/internal/llm/openai"
	"github.com/hew-dev/hew/internal/llm/retry"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

// waits records retry waits so no test sleeps for real.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

type protocol struct {
	name string
	make func(url string, pol *retry.Policy) llm.Provider
}

var protocols = []protocol{
	{"anthropic", func(url string, pol *retry.Policy) llm.Provider {
		return anthropic.New(anthropic.Config{APIKey: "test-key", BaseURL: url, Retry: pol})
	}},
	{"openai", func(url string, pol *retry.Policy) llm.Provider {
		return openai.New(openai.Config{APIKey: "test-key", BaseURL: url + "/v1", Retry: pol})
	}},
}

// harness is one provider talking to one mock server.
type harness struct {
	srv   *Server
	p     llm.Provider
	waits *waits
}

func start(t *testing.T, proto protocol, scenarioJSON string) *harness {
	t.Helper()
	sc, err := scenario.Parse([]byte(scenarioJSON))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	srv, err := Start(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	w := &waits{}
	pol := retry.Default()
	pol.Sleep = w.sleep
	h := &harness{srv: srv, p: proto.make(srv.URL(), pol), waits: w}
	t.Cleanup(func() {
		if v := srv.Violations(); len(v) > 0 {
			t.Errorf("invalid requests reached the server: %v", v)
		}
	})
	return h
}

// run sends req and records every event.
type run struct {
	resp   *llm.Response
	err    error
	events []llm.Event
}

// since returns the events after the last retry: what a caller keeps.
func (r run) since() []llm.Event {
	out := r.events
	for i, e := range r.events {
		if e.Type == llm.EvRetry {
			out = r.events[i+1:]
		}
	}
	return out
}

func (r run) count(t llm.EventType) int {
	n := 0
	for _, e := range r.events {
		if e.Type == t {
			n++
		}
	}
	return n
}

func (r run) streamed(t llm.EventType) string {
	var b strings.Builder
	for _, e := range r.since() {
		if e.Type == t {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func (h *harness) send(ctx context.Context, req *llm.Request) run {
	var r run
	r.resp, r.err = h.p.Stream(ctx, req, func(e llm.Event) { r.events = append(r.events, e) })
	return r
}

func userReq(text string) *llm.Request {
	return &llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 4096,
		System:   []llm.SystemBlock{{Text: "You are a test.", Cache: true}},
		Messages: []llm.Message{llm.UserText(text)},
		Tools: []llm.ToolSpec{
			{Name: "read_file", Description: "read", InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)},
			{Name: "write_file", Description: "write", InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}}}`)},
		}}
}

func sameJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("input %s: %v", got, err)
	}
	_ = json.Unmarshal([]byte(want), &b)
	ga, _ := json.Marshal(a)
	gb, _ := json.Marshal(b)
	if string(ga) != string(gb) {
		t.Fatalf("input = %s, want %s", ga, gb)
	}
}

func forBoth(t *testing.T, f func(t *testing.T, proto protocol)) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) { f(t, p) })
	}
}

func TestTextAnswer(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"Hello from the mock server, in several pieces."}]}`)
		r := h.send(context.Background(), userReq("hi"))
		if r.err != nil {
			t.Fatal(r.err)
		}
		want := "Hello from the mock server, in several pieces."
		if r.resp.Message.Text() != want || r.streamed(llm.EvTextDelta) != want {
			t.Fatalf("text %q, streamed %q", r.resp.Message.Text(), r.streamed(llm.EvTextDelta))
		}
		if r.count(llm.EvTextDelta) < 3 {
			t.Errorf("want the text in several deltas, got %d", r.count(llm.EvTextDelta))
		}
		if r.resp.StopReason != llm.StopEndTurn || r.resp.Usage.InputTokens == 0 || r.resp.Usage.OutputTokens == 0 {
			t.Errorf("stop %s usage %+v", r.resp.StopReason, r.resp.Usage)
		}
		if r.resp.Message.Role != llm.RoleAssistant {
			t.Errorf("role %s", r.resp.Message.Role)
		}
	})
}

func TestToolCallInManyChunks(t *testing.T) {
	content := strings.Repeat(`line of text with \"quotes\" and ünïcode\n`, 8)
	input := fmt.Sprintf(`{"file_path":"notes/a.txt","content":"%s"}`, content)
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"Writing.","chunk_size":2,"tool_calls":[{"name":"write_file","input":`+input+`}]}]}`)
		r := h.send(context.Background(), userReq("write it"))
		if r.err != nil {
			t.Fatal(r.err)
		}
		if n := r.count(llm.EvToolDelta); n < 20 {
			t.Fatalf("arguments came in %d deltas, want many", n)
		}
		uses := r.resp.Message.ToolUses()
		if len(uses) != 1 || uses[0].Name != "write_file" || uses[0].ID != "toolu_s01_1" {
			t.Fatalf("tool uses %+v", uses)
		}
		sameJSON(t, uses[0].Input, input)
		if r.resp.StopReason != llm.StopToolUse {
			t.Errorf("stop %s", r.resp.StopReason)
		}
		var done []llm.Block
		for _, e := range r.events {
			if e.Type == llm.EvToolDone {
				done = append(done, *e.Block)
			}
			if e.Type == llm.EvToolStart && (e.Block.ID != "toolu_s01_1" || e.Block.Name != "write_file") {
				t.Errorf("tool start %+v", e.Block)
			}
		}
		if len(done) != 1 {
			t.Fatalf("want one EvToolDone, got %d", len(done))
		}
		sameJSON(t, done[0].Input, input)
	})
}

func TestTwoInterleavedToolCalls(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"interleave_tool_calls":true,"chunk_size":2,"tool_calls":[
			{"name":"read_file","input":{"file_path":"first/file/with/a/long/path.go"}},
			{"name":"write_file","input":{"file_path":"second.txt","content":"some content here"}}]}]}`)
		r := h.send(context.Background(), userReq("do both"))
		if r.err != nil {
			t.Fatal(r.err)
		}
		uses := r.resp.Message.ToolUses()
		if len(uses) != 2 {
			t.Fatalf("want 2 calls, got %+v", uses)
		}
		if uses[0].ID != "toolu_s01_1" || uses[0].Name != "read_file" || uses[1].ID != "toolu_s01_2" || uses[1].Name != "write_file" {
			t.Fatalf("calls out of order or mixed: %+v", uses)
		}
		sameJSON(t, uses[0].Input, `{"file_path":"first/file/with/a/long/path.go"}`)
		sameJSON(t, uses[1].Input, `{"file_path":"second.txt","content":"some content here"}`)
		// The deltas really were interleaved on the wire.
		var order []int
		for _, e := range r.events {
			if e.Type == llm.EvToolDelta && (len(order) == 0 || order[len(order)-1] != e.Index) {
				order = append(order, e.Index)
			}
		}
		if len(order) < 4 {
			t.Errorf("deltas were not interleaved: index runs %v", order)
		}
	})
}

func TestThinking(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"thinking":"The user wants a greeting; keep it short.","text":"Hello."}]}`)
		req := userReq("greet")
		req.Thinking = true
		r := h.send(context.Background(), req)
		if r.err != nil {
			t.Fatal(r.err)
		}
		c := r.resp.Message.Content
		if len(c) != 2 || c[0].Type != llm.BlockThinking || c[0].Text != "The user wants a greeting; keep it short." || c[1].Text != "Hello." {
			t.Fatalf("content %+v", c)
		}
		if r.streamed(llm.EvThinkingDelta) != c[0].Text {
			t.Errorf("streamed thinking %q", r.streamed(llm.EvThinkingDelta))
		}
		if proto.name == "anthropic" && c[0].Signature != "mock-signature" {
			t.Errorf("signature %q not kept", c[0].Signature)
		}
	})
}

func TestRateLimitThenSuccess(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"made it","error":{"status":429,"retry_after":2}}]}`)
		r := h.send(context.Background(), userReq("hi"))
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.resp.Message.Text() != "made it" || r.count(llm.EvRetry) != 1 {
			t.Fatalf("text %q, retries %d", r.resp.Message.Text(), r.count(llm.EvRetry))
		}
		if len(h.srv.Requests()) != 2 {
			t.Errorf("server saw %d requests, want 2", len(h.srv.Requests()))
		}
		if len(h.waits.d) != 1 || h.waits.d[0] != 2*time.Second {
			t.Errorf("waits %v, want the server's retry-after of 2s", h.waits.d)
		}
		var ae *llm.APIError
		if ev := r.events[0]; ev.Type != llm.EvRetry || !errors.As(ev.Err, &ae) || ae.Status != 429 || ev.DelayMS != 2000 {
			t.Errorf("retry event %+v", ev)
		}
	})
}

func TestOverloadedFourTimes(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"never","error":{"status":529,"times":4}}]}`)
		r := h.send(context.Background(), userReq("hi"))
		var ae *llm.APIError
		if !errors.As(r.err, &ae) || ae.Status != 529 || ae.Retries != 3 {
			t.Fatalf("err = %v", r.err)
		}
		if r.resp != nil || r.count(llm.EvRetry) != 3 || len(h.srv.Requests()) != 4 {
			t.Fatalf("resp %v retries %d requests %d", r.resp, r.count(llm.EvRetry), len(h.srv.Requests()))
		}
		if !strings.Contains(r.err.Error(), "529") || !strings.Contains(r.err.Error(), "3 retries") {
			t.Errorf("message %q", r.err)
		}
		// Backoff doubles: [0.5,1), [1,2), [2,4) seconds.
		for i, d := range h.waits.d {
			lo := 500 * time.Millisecond << i
			if d < lo || d >= 2*lo {
				t.Errorf("wait %d = %v, want in [%v,%v)", i, d, lo, 2*lo)
			}
		}
	})
}

func TestBadRequestNotRetried(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"x","error":{"status":400,"message":"tools.0.input_schema: bad type"}}]}`)
		r := h.send(context.Background(), userReq("hi"))
		var ae *llm.APIError
		if !errors.As(r.err, &ae) || ae.Status != 400 || ae.Retries != 0 {
			t.Fatalf("err = %v", r.err)
		}
		if !strings.Contains(r.err.Error(), "400") || !strings.Contains(r.err.Error(), "tools.0.input_schema: bad type") {
			t.Errorf("error must name status and message: %q", r.err)
		}
		if r.count(llm.EvRetry) != 0 || len(h.srv.Requests()) != 1 {
			t.Errorf("retried a 400: %d retries, %d requests", r.count(llm.EvRetry), len(h.srv.Requests()))
		}
	})
}

func TestStreamCutIsRetried(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		text := "This answer is long enough to be cut in the middle of streaming."
		h := start(t, proto, `{"turns":[{"text":"`+text+`","cut_after_chunks":5},{"text":"second turn"}]}`)
		r := h.send(context.Background(), userReq("hi"))
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.count(llm.EvRetry) != 1 || !errors.Is(r.events[indexOf(r.events, llm.EvRetry)].Err, retry.ErrStreamCut) {
			t.Fatalf("want one retry for the cut stream, events %d retries", r.count(llm.EvRetry))
		}
		if indexOf(r.events, llm.EvRetry) == 0 {
			t.Fatal("the cut stream sent nothing before the cut")
		}
		if r.resp.Message.Text() != text || r.streamed(llm.EvTextDelta) != text {
			t.Fatalf("text %q, kept deltas %q: duplicated or wrong", r.resp.Message.Text(), r.streamed(llm.EvTextDelta))
		}
		// The retried request repeated the same turn; the next takes turn 2.
		r2 := h.send(context.Background(), userReq("again"))
		if r2.err != nil || r2.resp.Message.Text() != "second turn" {
			t.Fatalf("next turn: %v %+v", r2.err, r2.resp)
		}
	})
}

// A fault placed past the end of the answer never fires; the turn is then
// served once, not again on the next request.
func TestFaultPastTheEnd(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"short","cut_after_chunks":500},{"text":"next","stream_error":{"after_chunks":500}},{"text":"third"}]}`)
		for _, want := range []string{"short", "next", "third"} {
			r := h.send(context.Background(), userReq("hi"))
			if r.err != nil || r.resp.Message.Text() != want || r.count(llm.EvRetry) != 0 {
				t.Fatalf("want %q: %v %+v", want, r.err, r.resp)
			}
		}
	})
}

func TestOverloadEventInsideStream(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"finally a complete answer","stream_error":{"after_chunks":3}}]}`)
		r := h.send(context.Background(), userReq("hi"))
		if r.err != nil {
			t.Fatal(r.err)
		}
		var ae *llm.APIError
		if r.count(llm.EvRetry) != 1 || !errors.As(r.events[indexOf(r.events, llm.EvRetry)].Err, &ae) || ae.Type != "overloaded_error" {
			t.Fatalf("want a retry for the overloaded event; events %+v", r.events)
		}
		if r.resp.Message.Text() != "finally a complete answer" || r.streamed(llm.EvTextDelta) != "finally a complete answer" {
			t.Fatalf("text %q", r.resp.Message.Text())
		}
	})
}

func TestCancelMidStream(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"`+strings.Repeat("slow words ", 40)+`","chunk_delay_ms":20,"tool_calls":[{"name":"read_file","input":{"file_path":"x"}}]}]}`)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var events []llm.Event
		resp, err := h.p.Stream(ctx, userReq("hi"), func(e llm.Event) {
			events = append(events, e)
			if e.Type == llm.EvTextDelta && len(events) == 2 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) || resp != nil {
			t.Fatalf("err %v resp %v, want context.Canceled and no response", err, resp)
		}
		for _, e := range events {
			if e.Type == llm.EvToolStart || e.Type == llm.EvToolDone || e.Type == llm.EvRetry {
				t.Fatalf("event %s after cancellation", e.Type)
			}
		}
		if len(events) != 2 {
			t.Errorf("%d events in all, want the 2 before the cancel and nothing after", len(events))
		}
	})
}

func TestTruncatedToolCallNotExecutable(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"Writing a big file.","stop_reason":"max_tokens","tool_calls":[{"name":"write_file","input":{"file_path":"big.txt","content":"abcdefghijklmnopqrstuvwxyz"}}]}]}`)
		r := h.send(context.Background(), userReq("hi"))
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.resp.StopReason != llm.StopMaxTokens || len(r.resp.Message.ToolUses()) != 0 || r.count(llm.EvToolDone) != 0 {
			t.Fatalf("stop %s, calls %+v, done events %d", r.resp.StopReason, r.resp.Message.ToolUses(), r.count(llm.EvToolDone))
		}
		if r.resp.Message.Text() != "Writing a big file." {
			t.Errorf("text %q", r.resp.Message.Text())
		}
	})
}

func indexOf(evs []llm.Event, t llm.EventType) int {
	for i, e := range evs {
		if e.Type == t {
			return i
		}
	}
	return -1
}
