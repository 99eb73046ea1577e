package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/core"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
)

// fakeAgent stands in for core.Session: it emits a small turn per prompt.
// "slow" streams until cancelled; "ask" asks its approver first. The
// optional funcs back the commands a test looks at.
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

	status    func() core.Status
	sessions  []core.Summary
	skills    []core.SkillCommand
	skillText func(name, args string) (string, bool)
	memories  func() ([]string, error)
	remember  func(text string) (string, error)
	goal      func(ctx context.Context, cond string) agent.TurnResult
	loopRound func(ctx context.Context, prompt string) (time.Duration, string, bool)
	ckpt      *checkpoint.Store
	loopMax   int // LoopNext ends the loop at this round; 0: never
}

func newFakeAgent() *fakeAgent {
	return &fakeAgent{mode: permission.ModeDefault, model: "claude-sonnet-4-5", emit: func(agent.Event) {}, started: make(chan struct{}, 1), aborted: make(chan struct{}, 1)}
}

func (f *fakeAgent) Submit(ctx context.Context, prompt string) agent.TurnResult {
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
		if ctx.Err() != nil {
			res.StopReason = agent.StopAborted
		}
	case "many":
		for i := 1; i <= 80; i++ {
			f.emit(agent.TextDelta{Text: fmt.Sprintf("output line %d\n", i)})
		}
	case "tool":
		f.emit(agent.ToolStarted{ID: "c1", Name: "run_shell", Summary: "seq 20"})
		var b strings.Builder
		for i := 1; i <= 20; i++ {
			fmt.Fprintf(&b, "result row %d\n", i)
		}
		f.emit(agent.ToolFinished{ID: "c1", Name: "run_shell", Result: b.String()})
		f.emit(agent.TextDelta{Text: "ran it"})
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

func (f *fakeAgent) SetModel(model string) error {
	if model == "broken" {
		return errors.New("no key for this provider")
	}
	f.model = model
	return nil
}
func (f *fakeAgent) SetMode(m permission.Mode) { f.mode = m }
func (f *fakeAgent) Mode() permission.Mode     { return f.mode }
func (f *fakeAgent) Compact(_ context.Context, focus string) error {
	f.compacts = append(f.compacts, focus)
	return nil
}
func (f *fakeAgent) Clear() string {
	f.cleared++
	prev := ""
	if len(f.history) > 0 {
		prev = "01JSESSION"
	}
	f.history = nil
	return prev
}

func (f *fakeAgent) Status() core.Status {
	if f.status != nil {
		return f.status()
	}
	return core.Status{ID: "01JSESSION", Model: f.model, Provider: "anthropic", Mode: f.mode, CacheHitRate: -1,
		Usage:   llm.Usage{InputTokens: 1000, OutputTokens: 250, CacheReadTokens: 3000, CacheWriteTokens: 1000},
		CostUSD: 0.0421}
}

func (f *fakeAgent) Sessions() ([]core.Summary, error) { return f.sessions, nil }
func (f *fakeAgent) Resume(_ context.Context, id string) error {
	for _, s := range f.sessions {
		if s.ID == id {
			return nil
		}
	}
	return errors.New("no such session")
}

func (f *fakeAgent) Skills() []core.SkillCommand { return f.skills }
func (f *fakeAgent) RunSkill(ctx context.Context, name, args string) (agent.TurnResult, bool) {
	if f.skillText == nil {
		return agent.TurnResult{}, false
	}
	text, ok := f.skillText(name, args)
	if !ok {
		return agent.TurnResult{}, false
	}
	return f.Submit(ctx, text), true
}

func (f *fakeAgent) Memory(_ context.Context, args string) (string, error) {
	if f.memories == nil {
		return "No memories for this project yet. /remember TEXT adds one.", nil
	}
	lines, err := f.memories()
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return strings.Join(out, "\n"), err
}
func (f *fakeAgent) Remember(text string) (string, error) {
	if f.remember == nil {
		return "", errors.New("memory is read-only here")
	}
	return f.remember(text)
}
func (f *fakeAgent) Goal(ctx context.Context, cond string) agent.TurnResult {
	if f.goal == nil {
		return agent.TurnResult{StopReason: agent.StopGoalImpossible, Err: "no evaluator in this test"}
	}
	return f.goal(ctx, cond)
}
func (f *fakeAgent) LoopRound(ctx context.Context, prompt string) (time.Duration, string, bool) {
	if f.loopRound == nil {
		return 0, "", false
	}
	return f.loopRound(ctx, prompt)
}

func (f *fakeAgent) LoopStarted() {}
func (f *fakeAgent) LoopNext(round int, _ time.Duration, _ string) (bool, string) {
	if f.loopMax > 0 && round >= f.loopMax {
		return false, "the loop's limit of " + fmt.Sprint(f.loopMax) + " rounds is reached"
	}
	return true, ""
}
func (f *fakeAgent) LoopEnded() {}

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

// The checkpoint side of the fake is a real store (ckpt), if set.
func (f *fakeAgent) PlanUndo(n int, force bool) (*checkpoint.Plan, error) {
	if f.ckpt == nil {
		return nil, errors.New("checkpoints are off")
	}
	return f.ckpt.PlanUndo("fake", n, force)
}
func (f *fakeAgent) RewindPoints() ([]core.RewindPoint, error) { return nil, nil }
func (f *fakeAgent) PlanRewindCode(core.RewindPoint, bool) (*checkpoint.Plan, error) {
	return nil, errors.New("not in the fake")
}
func (f *fakeAgent) RewindConversation(core.RewindPoint) error { return errors.New("not in the fake") }
