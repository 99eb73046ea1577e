package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// batch runs the tool calls of one model answer. Consecutive read-only
// calls run in parallel; any other call is a barrier that waits for the
// running ones and runs alone. With streaming on, a read-only call whose
// permission is a plain allow starts as soon as its arguments are complete,
// while the model is still writing the rest of the answer; nothing with
// side effects starts before the answer is complete.
type batch struct {
	p   *pipeline
	ctx context.Context

	// early is true while calls may still start during the stream: every
	// call so far was read-only (or finished without running).
	early     bool
	streaming bool
	tasks     map[string]*task
	// done lists the ids whose arguments the stream reported complete.
	done map[string]bool
	// requested lists the ids announced with ToolRequested.
	requested   map[string]bool
	sawToolDone bool

	wg sync.WaitGroup
}

type task struct {
	pr      *prepared
	started bool
	cancel  context.CancelFunc
	out     outcome
	// ready, for calls taken up during the stream, is closed once pr is
	// set and the call has started or been left for after the stream.
	ready chan struct{}
}

func newBatch(ctx context.Context, p *pipeline, streaming bool) *batch {
	return &batch{p: p, ctx: ctx, early: streaming, streaming: streaming, tasks: map[string]*task{}, done: map[string]bool{}, requested: map[string]bool{}}
}

// request announces a call once, in the model's order: calls started during
// the stream are a prefix of the answer, and finish announces the rest in
// order as it reaches them.
func (b *batch) request(c llm.Block) {
	if b.requested[c.ID] {
		return
	}
	b.requested[c.ID] = true
	b.p.emit(ToolRequested{ID: c.ID, Name: c.Name, Input: c.Input})
}

// onToolDone sees a call whose arguments are complete while the answer is
// still streaming. A read-only call is taken up at once on its own
// goroutine — checks and PreToolUse hooks included, so a slow hook never
// stalls the stream — and runs if its permission is a plain allow. A call
// that needs a question waits for the answer to be complete, so questions
// are asked in the model's order.
func (b *batch) onToolDone(call llm.Block) {
	b.sawToolDone = true
	if call.ID == "" {
		b.early = false
		return
	}
	b.done[call.ID] = true
	if !b.early || b.tasks[call.ID] != nil || b.ctx.Err() != nil {
		return
	}
	tool, ok := b.p.cfg.Tools.Get(call.Name)
	if !ok || !b.p.cfg.Tools.Visible(call.Name) {
		// An error result later; no later call starts before it, so the
		// calls are announced in the model's order.
		b.early = false
		return
	}
	if !safeReadOnly(tool, call.Input) {
		b.early = false // nothing after a side effect starts before the stream ends
		return
	}
	ctx, cancelCause := context.WithCancelCause(b.ctx)
	t := &task{ready: make(chan struct{}), cancel: func() { cancelCause(errDiscarded) }}
	b.tasks[call.ID] = t
	b.request(call)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer t.cancel()
		pr := b.p.precheck(ctx, call)
		t.pr = pr
		if pr.done || !pr.readOnly || pr.verdict.Decision != permission.Allow || pr.verdict.Classify || !b.p.authorize(ctx, pr) {
			close(t.ready)
			return
		}
		t.started = true
		close(t.ready)
		t.out = b.p.safeRun(ctx, pr)
	}()
}

// safeReadOnly asks a tool whether a call is read-only; a tool that panics
// there is treated as having side effects (its precheck reports the bug).
func safeReadOnly(t tools.Tool, input json.RawMessage) (ro bool) {
	defer func() {
		if recover() != nil {
			ro = false
		}
	}()
	return t.ReadOnly(input)
}

// errDiscarded cancels calls started for an answer that was thrown away
// (the request was retried), as opposed to the user interrupting.
var errDiscarded = errors.New("the model's answer was retried; this call was discarded")

func (b *batch) start(t *task) {
	ctx, cancelCause := context.WithCancelCause(b.ctx)
	cancel := func() { cancelCause(errDiscarded) }
	t.started, t.cancel = true, cancel
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer cancel()
		t.out = b.p.safeRun(ctx, t.pr)
	}()
}

// discard drops everything started during a stream that is being retried
// or abandoned: running calls are cancelled and awaited.
func (b *batch) discard() {
	for _, t := range b.tasks {
		if t.cancel != nil {
			t.cancel()
		}
	}
	b.wg.Wait()
	b.tasks = map[string]*task{}
	b.done = map[string]bool{}
	b.requested = map[string]bool{}
	b.sawToolDone = false
	b.early = b.streaming
}

// complete reports whether the stream saw call's arguments end. Providers
// that do not report completion are trusted except for the last block.
func (b *batch) complete(call llm.Block, last bool) bool {
	if b.sawToolDone {
		return b.done[call.ID]
	}
	return !last && validObject(call.Input)
}

// finish runs the calls of the complete answer and returns one outcome per
// call, in the model's order. Permission questions are asked in order,
// each before its call runs. Once ctx is cancelled, calls that have not
// started get an aborted result.
func (b *batch) finish(calls []llm.Block) []outcome {
	tasks := make([]*task, len(calls))
	used := map[*task]bool{}
	// Calls started during the stream that the final answer does not hold
	// are cancelled first, so no barrier waits for them.
	wanted := make(map[string]bool, len(calls))
	for _, c := range calls {
		wanted[c.ID] = true
	}
	for id, t := range b.tasks {
		if !wanted[id] && t.cancel != nil {
			t.cancel()
		}
	}
	for i, c := range calls {
		b.request(c)
		t := b.tasks[c.ID]
		if t == nil || used[t] {
			t = &task{}
		}
		used[t] = true
		tasks[i] = t
		if t.ready != nil {
			<-t.ready
		}
		if t.started || (t.pr != nil && t.pr.done) {
			continue
		}
		if t.pr != nil && !t.pr.readOnly {
			// A hook rewrote a streamed read into a call with side effects:
			// it runs after the stream like any other, from its checks on.
			t.pr = nil
		}
		if b.ctx.Err() != nil {
			t.pr = &prepared{call: c, done: true, out: b.p.aborted(c)}
			continue
		}
		if t.pr == nil {
			t.pr = b.p.precheck(b.ctx, c)
		}
		if !b.p.authorize(b.ctx, t.pr) {
			continue
		}
		if t.pr.parallel {
			b.start(t)
			continue
		}
		b.wg.Wait() // barrier: earlier calls finish first
		if b.ctx.Err() != nil {
			t.pr.done, t.pr.out = true, b.p.aborted(c)
			continue
		}
		t.started = true
		t.out = b.p.safeRun(b.ctx, t.pr)
	}
	b.wg.Wait()
	outs := make([]outcome, len(calls))
	for i, t := range tasks {
		if t.started {
			outs[i] = t.out
		} else {
			outs[i] = t.pr.out
		}
		// Guard against a result for the wrong id (pairing invariant).
		outs[i].result.ID = calls[i].ID
		outs[i].result.Type = llm.BlockToolResult
	}
	return outs
}

// validObject reports whether in is a complete JSON object.
func validObject(in []byte) bool {
	in = bytes.TrimSpace(in)
	return len(in) > 1 && in[0] == '{' && json.Valid(in)
}
