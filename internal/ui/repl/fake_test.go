package repl

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
)

// fakeAgent stands in for *agent.Agent: it emits a small turn per prompt.
// "slow" streams until cancelled; "ask" asks its approver first.
type fakeAgent struct {
	mu       sync.Mutex
	emit     func(agent.Event)
	approver agent.Approver
	prompts  []string
	mode     permission.Mode
	model    string
	cleared  int
	compacts []string
	history  []llm.Message
	started  chan struct{} // receives when a slow turn is streaming
	aborted  chan struct{} // receives when a slow turn saw its cancellation
}

func newFakeAgent() *fakeAgent {
	return &fakeAgent{mode: permission.ModeDefault, emit: func(agent.Event) {}, started: make(chan struct{}, 1), aborted: make(chan struct{}, 1)}
}

func (f *fakeAgent) Run(ctx context.Context, prompt string) agent.TurnResult {
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	f.history = append(f.history, llm.UserText(prompt))
	f.mu.Unlock()
	f.emit(agent.TurnStarted{Prompt: prompt})
	f.emit(agent.RequestStarted{RoundTrip: 1})
	res := agent.TurnResult{StopReason: agent.StopCompleted}
	switch prompt {
	case "slow":
		f.emit(agent.TextDelta{Text: "chunk 1 "})
		f.started <- struct{}{}
		for i := 2; ctx.Err() == nil; i++ {
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
				f.emit(agent.TextDelta{Text: fmt.Sprintf("chunk %d ", i)})
			}
		}
		f.aborted <- struct{}{}
		res.StopReason = agent.StopAborted
	case "ask":
		req := agent.ApprovalRequest{ID: "t1", Tool: "run_shell", Subject: "make clean"}
		a, why := f.approver.Approve(ctx, req)
		f.emit(agent.TextDelta{Text: fmt.Sprintf("approval=%s why=%q", a, why)})
	default:
		f.emit(agent.TextDelta{Text: fmt.Sprintf("echo: %q", prompt)})
	}
	f.emit(agent.TurnEnded{Result: res})
	return res
}

func (f *fakeAgent) History() []llm.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.Message(nil), f.history...)
}
func (f *fakeAgent) SetModel(_ llm.Provider, model string) { f.model = model }
func (f *fakeAgent) SetMode(m permission.Mode)             { f.mode = m }
func (f *fakeAgent) Mode() permission.Mode                 { return f.mode }
func (f *fakeAgent) Compact(_ context.Context, focus string) error {
	f.compacts = append(f.compacts, focus)
	return nil
}
func (f *fakeAgent) Usage() (llm.Usage, float64) {
	return llm.Usage{InputTokens: 1000, OutputTokens: 250, CacheReadTokens: 3000, CacheWriteTokens: 1000}, 0.0421
}
func (f *fakeAgent) Clear() { f.cleared++; f.history = nil }

func (f *fakeAgent) gotPrompts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.prompts...)
}

// syncBuffer is an output buffer safe to read while Run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until out contains want; the generous limit only guards
// against a hang, it measures nothing.
func waitFor(out interface{ String() string }, want string) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(out.String(), want) {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}
