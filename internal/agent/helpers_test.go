package agent

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// events collects emitted events.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) emit(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) list() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.all...)
}

func (e *events) names() []string {
	var out []string
	for _, ev := range e.list() {
		out = append(out, EventName(ev))
	}
	return out
}

func eventsOf[T Event](e *events) []T {
	var out []T
	for _, ev := range e.list() {
		if x, ok := ev.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// recorder keeps session records.
type recorder struct {
	mu       sync.Mutex
	messages []llm.Message
	records  map[string][]any
}

func (r *recorder) Message(m llm.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.messages = append(r.messages, m)
}

func (r *recorder) Record(kind string, v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.records == nil {
		r.records = map[string][]any{}
	}
	r.records[kind] = append(r.records[kind], v)
}

func (r *recorder) receipts() []Receipt {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Receipt
	for _, v := range r.records["receipt"] {
		out = append(out, v.(Receipt))
	}
	return out
}

// perms is a permission checker driven by a function.
type perms struct {
	fn     func(permission.Request) permission.Verdict
	mu     sync.Mutex
	grants []string
}

func (p *perms) Check(r permission.Request) permission.Verdict { return p.fn(r) }
func (p *perms) Grant(tool string, input json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grants = append(p.grants, tool+string(input))
}

// approver answers with a function and counts questions.
type approver struct {
	mu    sync.Mutex
	asked []ApprovalRequest
	fn    func(ApprovalRequest) (Approval, string)
}

func (a *approver) Approve(ctx context.Context, r ApprovalRequest) (Approval, string) {
	a.mu.Lock()
	a.asked = append(a.asked, r)
	a.mu.Unlock()
	if a.fn == nil {
		return ApproveDeny, ""
	}
	return a.fn(r)
}

type harness struct {
	t   *testing.T
	a   *Agent
	p   *agenttest.Provider
	ev  *events
	rec *recorder
	cfg Config
}

// newHarness builds an agent over a scripted provider and the given tools.
func newHarness(t *testing.T, p *agenttest.Provider, ts []tools.Tool, opt func(*Config)) *harness {
	t.Helper()
	reg := tools.NewRegistry()
	for _, tl := range ts {
		reg.Register(tl)
	}
	ev, rec := &events{}, &recorder{}
	cfg := Config{Provider: p, Model: "mock", Tools: reg, Emit: ev.emit, Recorder: rec, SessionID: "s1",
		Env: &tools.Env{Root: t.TempDir(), StateDir: t.TempDir()}}
	if opt != nil {
		opt(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, a: a, p: p, ev: ev, rec: rec, cfg: cfg}
}

// checkRequests asserts the pairing invariant on every request sent and on the history.
func (h *harness) checkInvariants() {
	h.t.Helper()
	for i, r := range h.p.Requests() {
		if err := agenttest.CheckPairing(r.Messages); err != nil {
			h.t.Fatalf("request %d violates pairing: %v", i, err)
		}
	}
	if err := agenttest.CheckPairing(h.a.History()); err != nil {
		h.t.Fatalf("final history violates pairing: %v", err)
	}
}

func lastResults(h []llm.Message) []llm.Block {
	for i := len(h) - 1; i >= 0; i-- {
		var out []llm.Block
		for _, b := range h[i].Content {
			if b.Type == llm.BlockToolResult {
				out = append(out, b)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

var call = agenttest.Call

type step = agenttest.Step
