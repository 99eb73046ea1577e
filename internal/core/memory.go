package core

import (
	"context"
	"fmt"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/memory"
	memorytool "github.com/hew-dev/hew/internal/tools/memory"
)

// memoryParts are the session's long-term memory: the store, the queue of
// memories written at the next turn boundary, recall and failure capture.
type memoryParts struct {
	store   *memory.Store
	queue   *memory.Queue
	recall  *memory.Recall
	capture *memory.FailureCapture // nil when turned off in settings
}

// newMemory wires memory for s (no file is read yet) and registers the
// deferred memory_write tool.
func (s *Session) newMemory() {
	st := memory.Open(s.stateDir)
	m := &memoryParts{store: st, queue: &memory.Queue{Store: st}}
	m.recall = &memory.Recall{Store: st, Model: s.Model}
	if s.o.MemorySemanticRecall {
		m.recall.Side = s.sideText
	}
	if s.o.MemoryFailureCapture {
		m.capture = &memory.FailureCapture{Q: m.queue}
	}
	s.memory = m
	s.o.Registry.Register(memorytool.New(m.queue))
}

// sideText sends a side request and counts its usage toward the session.
func (s *Session) sideText(ctx context.Context, req *llm.Request) (string, error) {
	s.mu.Lock()
	p := s.provider
	s.mu.Unlock()
	resp, err := p.Stream(ctx, req, func(llm.Event) {})
	if err != nil {
		return "", err
	}
	if s.agent != nil {
		s.agent.AddUsage(req.Model, resp.Usage)
	}
	return resp.Message.Text(), nil
}

// memoryLine is the environment block's line about memory ("" for none).
func (s *Session) memoryLine() string {
	list, err := s.memory.store.Indexed()
	if err != nil || len(list) == 0 {
		return ""
	}
	return fmt.Sprintf("%d memories from earlier sessions, indexed in %s; relevant ones come with messages", len(list), s.memory.store.IndexPath())
}

// endTurn writes the memories queued during the turn (memory_write, the
// failure capture): at the turn boundary, so nothing the model sees
// changes under a running turn.
func (s *Session) endTurn() {
	saved, errs := s.memory.queue.Flush()
	for _, r := range saved {
		s.emit(agent.Notice{Level: "info", Text: fmt.Sprintf("memory saved: %s (%s)", r.Memory.File(), r.Memory.Source)})
		if len(r.Pruned) > 0 {
			s.emit(agent.Notice{Level: "warn", Text: fmt.Sprintf("the memory index is full: %d lower-value memories are no longer indexed (hew memory list shows them)", len(r.Pruned))})
		}
	}
	for _, err := range errs {
		s.emit(agent.Notice{Level: "warn", Text: err.Error()})
	}
}

// Memory runs /memory ARGS: list, show, open in the editor, forget.
func (s *Session) Memory(_ context.Context, args string) (string, error) {
	s.mu.Lock()
	edit := s.o.Edit
	s.mu.Unlock()
	return memorySlash(s.memory.store, args, edit)
}

// SetEditor sets how /memory open runs the user's editor: the front-end
// that owns the terminal knows how to hand it over.
func (s *Session) SetEditor(edit func(path string) error) {
	s.mu.Lock()
	s.o.Edit = edit
	s.mu.Unlock()
}

// Remember stores text in long-term memory and says where (/remember).
func (s *Session) Remember(text string) (string, error) {
	res, err := s.memory.store.Add(memory.Memory{Body: text, Source: "user via /remember"})
	if err != nil {
		return "", err
	}
	where := res.Memory.File() + ", recalled from the next message on"
	if len(res.Pruned) > 0 {
		where += fmt.Sprintf("; the index is full, %d lower-value memories are no longer indexed", len(res.Pruned))
	}
	return where, nil
}

// recallContext injects the semantic recall answer between round trips:
// appended to the user message about to be sent, at most once.
type recallContext struct {
	agent.ContextManager
	recall *memory.Recall
}

// BeforeRequest implements agent.ContextManager.
func (c recallContext) BeforeRequest(req *llm.Request) []llm.Message {
	msgs := c.ContextManager.BeforeRequest(req)
	n := len(msgs)
	if n == 0 || msgs[n-1].Role != llm.RoleUser {
		return msgs
	}
	text := c.recall.Take()
	if text == "" {
		return msgs
	}
	out := append([]llm.Message(nil), msgs...)
	last := out[n-1]
	last.Content = append(append([]llm.Block(nil), last.Content...), llm.Block{Type: llm.BlockText, Text: text})
	out[n-1] = last
	return out
}

// captureHooks runs the configured hooks, then the built-in failure
// capture on every failed call.
type captureHooks struct {
	agent.HookRunner
	capture *memory.FailureCapture
}

// PostToolUse implements agent.HookRunner.
func (h captureHooks) PostToolUse(ctx context.Context, p agent.HookPayload) agent.HookOutcome {
	var out agent.HookOutcome
	if h.HookRunner != nil {
		out = h.HookRunner.PostToolUse(ctx, p)
	}
	if p.Event == "PostToolUseFailure" {
		h.capture.Observe(p.Tool, p.Input, p.Error)
	}
	return out
}

// PreToolUse implements agent.HookRunner.
func (h captureHooks) PreToolUse(ctx context.Context, p agent.HookPayload) agent.HookOutcome {
	if h.HookRunner == nil {
		return agent.HookOutcome{}
	}
	return h.HookRunner.PreToolUse(ctx, p)
}

// hooks are the configured hooks plus the failure capture, when on.
func (s *Session) hooks() agent.HookRunner {
	if s.memory == nil || s.memory.capture == nil {
		return s.o.Hooks
	}
	return captureHooks{HookRunner: s.o.Hooks, capture: s.memory.capture}
}

// contextManager is the compaction manager with semantic recall injection.
func (s *Session) contextManager() agent.ContextManager {
	if s.memory == nil {
		return s.ctxMgr
	}
	return recallContext{ContextManager: s.ctxMgr, recall: s.memory.recall}
}
