package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/llm"
)

// Output-limit recovery (issue 6, item 3).
const (
	maxContinuations = 3
	continuePrompt   = "Your previous answer was cut off by the output token limit. Continue exactly where you stopped: do not repeat what you already wrote, do not apologise or summarise."
	runawayRepeats   = 3
)

// turn is the state of one Run.
type turn struct {
	a     *Agent
	ctx   context.Context
	start time.Time

	roundTrips int
	toolCalls  int
	stopBlocks int    // times a Stop hook kept this turn going
	endText    string // a tool ended the turn with this final text (tools.Result.EndTurn)
	halt       string // the turn ends with this error after the current answer's calls
	denials    []Denial
	// carried is the text of answers cut off by the output limit, to be
	// continued by the next answer.
	carried strings.Builder

	// lastText is the latest non-empty assistant text of the turn, the
	// result when the turn ends without a final answer.
	lastText string
	// repeats counts, per call+result key, the consecutive answers that made it.
	repeats map[string]int
	// ids makes the tool-call ids of the answer being streamed unique in
	// the session.
	ids *callIDs
}

// Run handles one user message: model round trips until an answer asks
// for no tools, a limit is reached, ctx is cancelled or an error occurs.
// It never panics and always leaves a protocol-valid history.
func (a *Agent) Run(ctx context.Context, prompt string) (res TurnResult) {
	a.turnMu.Lock()
	defer a.turnMu.Unlock()
	a.mu.Lock()
	a.turnUsage, a.turnCost, a.turnUnknown = llm.Usage{}, 0, false
	a.intent = prompt
	a.mu.Unlock()
	t := &turn{a: a, ctx: ctx, start: time.Now()}
	if strings.TrimSpace(prompt) == "" {
		return t.end(StopError, "", "empty prompt: nothing to send to the model")
	}
	if msg := a.tooLarge(prompt); msg != "" {
		return t.end(StopError, "", msg)
	}
	defer func() {
		if r := recover(); r != nil {
			a.pairDangling()
			res = t.end(StopError, "", fmt.Sprintf("internal error: %v", r))
		}
	}()
	a.pipe.emit(TurnStarted{Prompt: prompt})
	a.reloadDeferred()
	if cp := a.cfg.Checkpoints; cp != nil {
		cp.TurnStart(prompt)
		defer func() {
			if err := cp.TurnEnd(context.WithoutCancel(ctx)); err != nil {
				a.pipe.emit(Notice{Level: "warn", Text: "checkpoint failed, /undo cannot take this turn back: " + err.Error()})
			}
		}()
	}
	return t.run(prompt)
}

func (t *turn) run(prompt string) TurnResult {
	a := t.a
	a.append(llm.UserText(prompt))
	if a.cfg.Context != nil {
		req := a.buildRequest(a.cfg.MaxOutputTokens)
		a.replaceHistory(a.cfg.Context.AtTurnStart(t.ctx, req), req.Messages)
	}
	maxTokens, ceiling := t.outputLimits()
	escalated := false
	continuations := 0
	for {
		if t.ctx.Err() != nil {
			return t.end(StopAborted, "", "interrupted by user")
		}
		if t.roundTrips >= a.cfg.MaxTurns {
			return t.end(StopMaxTurns, "", fmt.Sprintf("reached the limit of %s for one message", plural(a.cfg.MaxTurns, "model round trip", "model round trips")))
		}
		if over, why := a.overBudget(); over {
			return t.end(StopMaxBudget, "", why)
		}
		resp, b, err := t.request(maxTokens)
		if err != nil {
			if t.ctx.Err() != nil {
				return t.end(StopAborted, "", "interrupted by user")
			}
			return t.end(StopError, "", err.Error())
		}
		cut := resp.StopReason == llm.StopMaxTokens
		if cut && !escalated && maxTokens < ceiling {
			// Really escalate: the first request asked for less than the
			// ceiling. The streamed text is void, announced like a retry.
			escalated = true
			reason := fmt.Sprintf("the answer hit the output limit of %d tokens; asking again with max_tokens=%d", maxTokens, ceiling)
			maxTokens = ceiling
			b.discard()
			a.pipe.emit(Retrying{Attempt: 1, Reason: reason})
			a.pipe.emit(Notice{Level: "warn", Text: reason})
			continue
		}
		msg, truncated := t.assistantMessage(resp, b, cut)
		if len(msg.Content) > 0 {
			a.append(msg)
		}
		if txt := msg.Text(); txt != "" {
			t.lastText = txt
		}
		calls := msg.ToolUses()
		if len(calls) == 0 {
			b.discard()
			if !cut && t.stopHook() {
				continue
			}
			if !cut {
				return t.end(StopCompleted, t.carried.String()+msg.Text(), "")
			}
			t.carried.WriteString(msg.Text())
			if continuations >= maxContinuations {
				return t.cutOff()
			}
			continuations++
			a.pipe.emit(Notice{Level: "info", Text: fmt.Sprintf("the answer was cut off by the output limit; asking the model to continue (%d/%d)", continuations, maxContinuations)})
			a.append(llm.UserText(continueText(truncated)))
			continue
		}
		t.carried.Reset()
		outs := b.finish(calls)
		stop, runaway := t.collect(calls, outs, truncated)
		switch {
		case t.ctx.Err() != nil:
			return t.end(StopAborted, "", "interrupted by user")
		case runaway != "":
			return t.end(StopError, "", runaway)
		case stop != "":
			return t.end(StopError, "", "stopped by hook: "+stop)
		case t.halt != "":
			return t.end(StopError, "", t.halt)
		case t.endText != "":
			return t.end(StopCompleted, t.endText, "")
		}
		if cut {
			if continuations >= maxContinuations {
				return t.cutOff()
			}
			continuations++
		}
	}
}

// cutOff ends a turn whose answer kept hitting the output limit.
func (t *turn) cutOff() TurnResult {
	msg := fmt.Sprintf("the answer was still cut off by the output limit after %d continuations", maxContinuations)
	return t.end(StopError, t.carried.String(), msg)
}

// request sends one main-loop request. A prompt-too-long error gets one
// reactive compaction and a retry. The returned batch holds the calls
// started while the answer streamed.
func (t *turn) request(maxTokens int) (*llm.Response, *batch, error) {
	a := t.a
	recovered := false
	for {
		req := a.buildRequest(maxTokens)
		if a.cfg.Context != nil {
			req.Messages = a.cfg.Context.BeforeRequest(req)
			a.storeHistory(req.Messages)
		}
		a.mu.Lock()
		p := a.provider
		a.mu.Unlock()
		a.pipe.emit(RequestStarted{RoundTrip: t.roundTrips + 1})
		b := newBatch(t.ctx, a.pipe, !a.cfg.NoStreamingTools)
		t.ids = newCallIDs(req.Messages)
		resp, err := p.Stream(t.ctx, req, func(ev llm.Event) { t.onEvent(b, ev) })
		if err == nil && resp == nil {
			err = errors.New("model provider returned no answer")
		}
		if err != nil {
			b.discard()
			var ae *llm.APIError
			if t.ctx.Err() == nil && !recovered && a.cfg.Context != nil && errors.As(err, &ae) && ae.PromptTooLong() {
				msgs, ok := a.cfg.Context.Recover(t.ctx, req, err)
				if ok {
					recovered = true
					a.replaceHistory(msgs, nil)
					a.pipe.emit(Notice{Level: "warn", Text: "the prompt was too long for the model; compacted the conversation and retrying"})
					continue
				}
			}
			return nil, nil, fmt.Errorf("model request failed: %w", err)
		}
		t.roundTrips++
		resp = t.ids.apply(resp)
		if a.cfg.Context != nil {
			a.cfg.Context.AfterResponse(req, resp)
		}
		a.account(req.Model, resp.Usage, true)
		return resp, b, nil
	}
}

func (t *turn) onEvent(b *batch, ev llm.Event) {
	p := t.a.pipe
	switch ev.Type {
	case llm.EvTextDelta:
		p.emit(TextDelta{Text: ev.Text})
	case llm.EvThinkingDelta:
		p.emit(ThinkingDelta{Text: ev.Text})
	case llm.EvToolDone:
		if ev.Block != nil {
			b.onToolDone(t.ids.block(*ev.Block))
		}
	case llm.EvRetry:
		b.discard()
		t.ids.reset()
		text, reason := fmt.Sprintf("retrying (attempt %d)…", ev.Attempt), ""
		if ev.Err != nil {
			reason = ev.Err.Error()
			text = fmt.Sprintf("retrying (attempt %d) after: %v…", ev.Attempt, ev.Err)
		}
		p.emit(Retrying{Attempt: ev.Attempt, Reason: reason})
		p.emit(Notice{Level: "warn", Text: text})
	case llm.EvNotice:
		p.emit(Notice{Level: "warn", Text: ev.Text})
	}
}

// Output limits: the first request asks for escalationStart tokens (or
// the model's limit, if lower); an answer cut there is asked once more
// with the ceiling, after which a cut answer is continued instead.
const (
	escalationStart   = 16000
	escalationCeiling = 64000
)

// outputLimits are the first request's max_tokens and the one escalation's.
// An explicit MaxOutputTokens is kept (no escalation); for a model hew does
// not know the adapter's default applies and a cut answer is continued.
func (t *turn) outputLimits() (start, ceiling int) {
	if n := t.a.cfg.MaxOutputTokens; n > 0 {
		return n, n
	}
	info := llm.LookupModel(t.a.Model())
	if !info.Known || info.MaxOutput <= 0 {
		return 0, 0
	}
	ceiling = min(info.MaxOutput, escalationCeiling)
	if ceiling < 2*escalationStart {
		// Too little headroom to be worth regenerating a whole answer for
		// (gpt-4o's 16,384): ask for the limit at once and continue a cut.
		return ceiling, ceiling
	}
	return escalationStart, ceiling
}

// assistantMessage is the answer as it goes into the history. For an answer
// cut by the output limit, tool calls whose arguments were not complete are
// removed (they never run) and returned separately.
func (t *turn) assistantMessage(resp *llm.Response, b *batch, cut bool) (llm.Message, []llm.Block) {
	msg := llm.Message{Role: llm.RoleAssistant}
	var truncated []llm.Block
	n := len(resp.Message.Content)
	for i, blk := range resp.Message.Content {
		if blk.Type == llm.BlockToolUse {
			if cut && !b.complete(blk, i == n-1) {
				truncated = append(truncated, blk)
				continue
			}
			if !validObject(blk.Input) {
				blk.Input = []byte(`{}`)
			}
		}
		if blk.Type == llm.BlockText && blk.Text == "" {
			continue
		}
		msg.Content = append(msg.Content, blk)
	}
	return msg, truncated
}

func continueText(truncated []llm.Block) string {
	s := continuePrompt
	if len(truncated) > 0 {
		s += " " + truncatedNote(truncated)
	}
	return s
}

func truncatedNote(truncated []llm.Block) string {
	names := make([]string, len(truncated))
	for i, b := range truncated {
		names[i] = b.Name
	}
	return fmt.Sprintf("Your call to %s was cut off before its arguments were complete and was NOT run; issue it again in full (split large content into smaller steps).", strings.Join(names, ", "))
}

// collect appends the results message (one result per call, in the
// model's order) and updates denials and the runaway guard.
func (t *turn) collect(calls []llm.Block, outs []outcome, truncated []llm.Block) (stop, runaway string) {
	blocks := make([]llm.Block, 0, len(outs)+1)
	// A call repeated within one answer counts once; the guard looks at
	// consecutive answers that repeat it with the same result.
	seen := make(map[string]int, len(outs))
	for i, o := range outs {
		blocks = append(blocks, o.result)
		if o.denial != nil {
			t.denials = append(t.denials, *o.denial)
		}
		t.denials = append(t.denials, o.denials...)
		if o.stop != "" && stop == "" {
			stop = o.stop
		}
		if o.endTurn != "" && t.endText == "" {
			t.endText = o.endTurn
		}
		if o.halt != "" && t.halt == "" {
			t.halt = o.halt
		}
		if o.key != "" && seen[o.key] == 0 {
			seen[o.key] = t.repeats[o.key] + 1
			if seen[o.key] >= runawayRepeats && runaway == "" {
				runaway = fmt.Sprintf("stopped: %s was called %d times in a row with the same input and got the same result each time", calls[i].Name, seen[o.key])
			}
		}
	}
	t.repeats = seen
	if len(truncated) > 0 {
		blocks = append(blocks, llm.Block{Type: llm.BlockText, Text: continuePrompt + " " + truncatedNote(truncated)})
	}
	t.toolCalls += len(calls)
	t.a.append(llm.Message{Role: llm.RoleUser, Content: blocks})
	return stop, runaway
}

// tooLarge refuses a message that cannot fit the model's context window
// whatever compaction does (3 MB piped in would go out as ~750K tokens to
// a 200K model and fail after the upload): nothing is sent and the user is
// told the size and what to do. Four bytes per token errs on the side of
// sending.
func (a *Agent) tooLarge(prompt string) string {
	window := a.cfg.ContextWindow
	if window <= 0 {
		window = llm.LookupModel(a.Model()).ContextWindow
	}
	tokens := len(prompt) / 4
	if window <= 0 || tokens <= window {
		return ""
	}
	return fmt.Sprintf("the message is %s (about %d tokens), more than the %d-token context window of %s; nothing was sent. Save it to a file and ask hew to work on that file: it reads large files in parts",
		byteSize(len(prompt)), tokens, window, a.Model())
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// plural writes n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// end builds the turn's result and reports it. The stop's explanation
// travels only in the result (errText), never also as a Notice, so every
// front-end shows it once.
func (t *turn) end(reason StopReason, text, errText string) TurnResult {
	a := t.a
	a.mu.Lock()
	u, cost := a.turnUsage, a.turnCost
	if a.turnUnknown {
		cost = -1
	}
	a.mu.Unlock()
	if text == "" {
		text = t.lastText
	}
	r := TurnResult{
		Text: text, StopReason: reason, Usage: u, CostUSD: cost, Denials: t.denials,
		RoundTrips: t.roundTrips, ToolCalls: t.toolCalls, SessionID: a.cfg.SessionID,
		DurationMS: time.Since(t.start).Milliseconds(),
	}
	if reason != StopCompleted {
		r.Err = errText
	}
	a.pipe.record("turn", r)
	a.pipe.emit(TurnEnded{Result: r})
	return r
}

// pairDangling answers the calls of a trailing assistant message after an
// internal failure so the history stays protocol-valid.
func (a *Agent) pairDangling() {
	a.mu.Lock()
	n := len(a.history)
	var calls []llm.Block
	if n > 0 && a.history[n-1].Role == llm.RoleAssistant {
		calls = a.history[n-1].ToolUses()
	}
	a.mu.Unlock()
	if len(calls) == 0 {
		return
	}
	blocks := make([]llm.Block, len(calls))
	for i, c := range calls {
		blocks[i] = toolResult(c.ID, "Aborted: the call did not complete because of an internal error.", true)
	}
	a.append(llm.Message{Role: llm.RoleUser, Content: blocks})
}
