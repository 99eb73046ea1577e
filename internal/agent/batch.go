package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
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
	done        map[string]bool
	sawToolDone bool

	wg sync.WaitGroup
}

type task struct {
	pr      *prepared
	started bool
	cancel  context.CancelFunc
	out     outcome
}

func newBatch(ctx context.Context, p *pipeline, streaming bool) *batch {
	return &batch{p: p, ctx: ctx, early: streaming, streaming: streaming, tasks: map[string]*task{}, done: map[string]bool{}}
}

// onToolDone sees a call whose arguments are complete while the answer is
// still streaming.
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
	t := &task{pr: b.p.precheck(b.ctx, call)}
	b.tasks[call.ID] = t
	switch {
	case t.pr.done:
		// An error result: nothing runs, nothing to wait for.
	case !t.pr.readOnly:
		b.early = false
	case t.pr.verdict.Decision == permission.Allow && !t.pr.verdict.Classify:
		if b.p.authorize(b.ctx, t.pr) {
			b.start(t)
		}
	}
	// A read that needs a question waits for the answer to be complete,
	// so questions are asked in the model's order after the stream.
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
	for i, c := range calls {
		t := b.tasks[c.ID]
		if t == nil || used[t] {
			t = &task{}
		}
		used[t] = true
		tasks[i] = t
		if t.started || (t.pr != nil && t.pr.done) {
			continue
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
		if t.pr.readOnly {
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
	// Calls started during the stream that the final answer does not hold.
	for _, t := range b.tasks {
		if !used[t] && t.cancel != nil {
			t.cancel()
		}
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
