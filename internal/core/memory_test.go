package core

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/scenario"
	"github.com/hew-dev/hew/internal/memory"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/tools"
)

// recordingProvider keeps every request it forwards to the mock.
// The first main answer waits for the side answer, so the test does not
// depend on goroutine timing.
type recordingProvider struct {
	llm.Provider
	mu       sync.Mutex
	reqs     []*llm.Request
	main     int
	sideDone chan struct{}
}

func (p *recordingProvider) Stream(ctx context.Context, req *llm.Request, on func(llm.Event)) (*llm.Response, error) {
	cp := *req
	cp.Messages = append([]llm.Message(nil), req.Messages...)
	p.mu.Lock()
	p.reqs = append(p.reqs, &cp)
	side := llm.DetectPurpose(req) == llm.PurposeMemoryRecall
	if !side {
		p.main++
	}
	first := !side && p.main == 1
	p.mu.Unlock()
	resp, err := p.Provider.Stream(ctx, req, on)
	if side {
		close(p.sideDone)
	}
	if first {
		select {
		case <-p.sideDone:
		case <-time.After(10 * time.Second):
		}
	}
	return resp, err
}

// Through the real loop: recall starts at submit, the side answer joins a
// later request once, and a memory the model writes lands at the turn
// boundary, not mid-turn.
func TestMemoryThroughTheSession(t *testing.T) {
	sc, err := scenario.Parse([]byte(`{"turns":[
	  {"text":"loading","tool_calls":[{"name":"tool_search","input":{"query":"select:memory_write"}}]},
	  {"text":"saving","tool_calls":[{"name":"memory_write","input":{"type":"feedback","name":"ship with make release","description":"shipping is make release, never a manual tag","text":"The user said: ship with make release."}}]},
	  {"text":"done"}],
	 "side":{"memory_recall":"project/ci-cd-notes.md"}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	st := memory.Open(session.ProjectDir(r.home, r.root))
	if _, err := st.Add(memory.Memory{Type: "project", Name: "CI/CD notes", Description: "deployment runs from the release workflow", Body: "Tag, then the workflow deploys."}); err != nil {
		t.Fatal(err)
	}
	prov := &recordingProvider{Provider: mock.New(sc), sideDone: make(chan struct{})}
	o := r.options()
	o.Provider = prov
	o.MemorySemanticRecall = true
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	o.Registry = reg
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	res := s.Submit(context.Background(), "what are the steps to ship it to production")
	if res.StopReason != agent.StopCompleted {
		t.Fatalf("turn: %+v", res)
	}
	var main []*llm.Request
	for _, q := range prov.reqs {
		if llm.DetectPurpose(q) == llm.PurposeMain {
			main = append(main, q)
		}
	}
	if len(main) != 3 {
		t.Fatalf("%d main requests", len(main))
	}
	text := func(q *llm.Request) string {
		var b strings.Builder
		for _, m := range q.Messages {
			for _, blk := range m.Content {
				b.WriteString(blk.Text + blk.Content + "\n")
			}
		}
		return b.String()
	}
	if strings.Contains(text(main[0]), "picked by meaning") {
		t.Fatal("side answer in the request it ran alongside")
	}
	if n := strings.Count(text(main[2]), "picked by meaning"); n != 1 {
		t.Fatalf("side answer shown %d times by the last request", n)
	}
	for _, q := range main {
		if strings.Contains(text(q), "ship with make release](") {
			t.Fatal("the memory written this turn was recalled mid-turn")
		}
	}
	m, err := st.Get("ship with make release")
	if err != nil || m.Type != "feedback" || m.Source != "model (memory_write)" {
		t.Fatalf("memory not written at the turn boundary: %+v %v", m, err)
	}
	r.ev.mu.Lock()
	defer r.ev.mu.Unlock()
	for _, e := range r.ev.list {
		if n, ok := e.(agent.Notice); ok && strings.Contains(n.Text, "memory saved: feedback/ship-with-make-release.md") {
			return
		}
	}
	t.Error("no notice for the saved memory")
}
