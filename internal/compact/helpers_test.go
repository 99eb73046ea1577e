package compact_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
)

// hb builds histories for tests: each call adds an assistant tool_use and
// the user message with its result.
type hb struct {
	h []llm.Message
	n int
}

func (b *hb) user(t string) *hb {
	b.h = append(b.h, llm.UserText(t))
	return b
}

func (b *hb) say(t string) *hb {
	b.h = append(b.h, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: t}}})
	return b
}

func (b *hb) call(name, input, result string) *hb {
	b.n++
	id := fmt.Sprintf("toolu_%03d", b.n)
	b.h = append(b.h,
		llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}}},
		llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: id, Content: result}}})
	return b
}

func (b *hb) read(path, result string) *hb {
	return b.call("read_file", `{"file_path":"`+path+`"}`, result)
}

func (b *hb) shell(cmd, result string) *hb {
	return b.call("run_shell", `{"command":"`+cmd+`"}`, result)
}

// results returns the tool_result contents of h in order.
func results(h []llm.Message) []string {
	var out []string
	for _, m := range h {
		for _, bl := range m.Content {
			if bl.Type == llm.BlockToolResult {
				out = append(out, bl.Content)
			}
		}
	}
	return out
}

func clone(h []llm.Message) []llm.Message {
	b, _ := json.Marshal(h)
	var out []llm.Message
	_ = json.Unmarshal(b, &out)
	return out
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// clock is a fake clock the tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

// events collects what a Manager emits.
type events struct {
	mu  sync.Mutex
	all []agent.Event
}

func (e *events) emit(ev agent.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) compacted() []agent.Compacted {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []agent.Compacted
	for _, ev := range e.all {
		if c, ok := ev.(agent.Compacted); ok {
			out = append(out, c)
		}
	}
	return out
}

func (e *events) misses() []agent.CacheMissUnexpected {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []agent.CacheMissUnexpected
	for _, ev := range e.all {
		if c, ok := ev.(agent.CacheMissUnexpected); ok {
			out = append(out, c)
		}
	}
	return out
}

func (e *events) notices() []agent.Notice {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []agent.Notice
	for _, ev := range e.all {
		if c, ok := ev.(agent.Notice); ok {
			out = append(out, c)
		}
	}
	return out
}

func (e *events) reset() {
	e.mu.Lock()
	e.all = nil
	e.mu.Unlock()
}

// fakeProvider answers summary side requests with a fixed summary and main
// requests through main; it records every request it saw.
type fakeProvider struct {
	mu         sync.Mutex
	summary    string
	summaryErr error
	main       func(req *llm.Request) (*llm.Response, error)
	summaries  []*llm.Request
	mains      int
}

func (p *fakeProvider) Name() string { return "fake" }

func (p *fakeProvider) Stream(ctx context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if llm.DetectPurpose(req) == llm.PurposeCompact {
		cp := *req
		p.summaries = append(p.summaries, &cp)
		if p.summaryErr != nil {
			return nil, p.summaryErr
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: p.summary}}}, StopReason: llm.StopEndTurn}, nil
	}
	p.mains++
	if p.main == nil {
		return nil, errors.New("no main answers scripted")
	}
	return p.main(req)
}

// baseRequest is a main request with a stable system prompt and tool list.
func baseRequest(h []llm.Message) *llm.Request {
	return &llm.Request{
		Model:     "mock",
		MaxTokens: 8000,
		System: []llm.SystemBlock{
			{Text: "You are hew, a coding agent.", Cache: true},
			{Text: "Working directory: /work/project"},
		},
		Tools: []llm.ToolSpec{
			{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "run_shell", Description: "Run a command.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		},
		Messages: h,
		Purpose:  llm.PurposeMain,
	}
}

func newManager(o compact.Options, c *clock, ev *events) *compact.Manager {
	if c != nil {
		o.Now = c.now
	}
	if ev != nil {
		o.Emit = ev.emit
	}
	return compact.New(o)
}

func ascii(n int) string { return strings.Repeat("abcdefgh", n/8+1)[:n] }
