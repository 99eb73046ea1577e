package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// pipeline runs tool calls: lookup → schema → semantic check → PreToolUse →
// permission (classifier / approval) → run → PostToolUse → shape. The loop
// and the Executor share it, so a call behaves the same with or without a model.
type pipeline struct {
	cfg *Config
	// mode returns the current permission mode.
	mode func() permission.Mode
	// side sends a side request (classifier) and accounts its usage; nil
	// when no model is available.
	side func(ctx context.Context, req *llm.Request) (*llm.Response, error)
	// intent returns the user's latest request, for the classifier.
	intent func() string

	// auto counts auto mode's classifier decisions and trips its fallback.
	auto autoGuard

	emitMu sync.Mutex
	recMu  sync.Mutex
	// grace is how long a cancelled or timed-out tool may take to return
	// on its own before its result is given up.
	grace time.Duration
}

func newPipeline(cfg *Config) *pipeline {
	return &pipeline{cfg: cfg, grace: 2 * time.Second, mode: func() permission.Mode { return cfg.Mode }}
}

// emit delivers e to the subscriber; tool goroutines share it, so it is serialised.
func (p *pipeline) emit(e Event) {
	if p.cfg.Emit == nil {
		return
	}
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	p.cfg.Emit(e)
}

func (p *pipeline) record(kind string, v any) {
	if p.cfg.Recorder == nil {
		return
	}
	p.recMu.Lock()
	defer p.recMu.Unlock()
	p.cfg.Recorder.Record(kind, v)
}

func (p *pipeline) recordMessage(m llm.Message) {
	if p.cfg.Recorder == nil {
		return
	}
	p.recMu.Lock()
	defer p.recMu.Unlock()
	p.cfg.Recorder.Message(m)
}

// outcome is the finished state of one call.
type outcome struct {
	result llm.Block // the tool_result block
	denial *Denial
	// denials are refusals inside a call that ran (a domain the sandbox's
	// proxy refused).
	denials []Denial
	// stop is set when a hook asked to end the turn after this call.
	stop string
	// endTurn is a tool's tools.Result.EndTurn: the turn completes after
	// this answer's calls with it as the final text.
	endTurn string
	// halt ends the turn with an error after this answer's calls (auto
	// mode gave up in a run nobody can be asked in).
	halt string
	// key identifies call and result for the runaway guard.
	key string
}

// prepared is a call that went through the steps before permission.
type prepared struct {
	call     llm.Block
	tool     tools.Tool
	input    json.RawMessage
	readOnly bool
	// parallel: the call may run alongside others (read-only or tools.Concurrent).
	parallel bool
	verdict  permission.Verdict
	// hookContext is the PreToolUse hooks' additional context.
	hookContext string
	// done is set when the call finished without running (error, denial).
	done    bool
	out     outcome
	receipt Receipt
}

func toolResult(id, content string, isError bool) llm.Block {
	return llm.Block{Type: llm.BlockToolResult, ID: id, Content: content, IsError: isError}
}

// finish ends a call that will not run, recording and announcing it.
func (p *pipeline) finish(pr *prepared, content, decidedBy string) *prepared {
	pr.done = true
	pr.out.result = toolResult(pr.call.ID, content, true)
	pr.receipt.End = time.Now()
	pr.receipt.IsError = true
	pr.receipt.ResultBytes = len(content)
	if pr.receipt.DecidedBy == "" {
		pr.receipt.DecidedBy = decidedBy
	}
	p.record("receipt", pr.receipt)
	rc := pr.receipt
	p.emit(ToolFinished{ID: pr.call.ID, Name: pr.call.Name, Result: content, IsError: true, Receipt: &rc})
	return pr
}

// aborted is the result of a call that never ran because the turn was cancelled.
func (p *pipeline) aborted(call llm.Block) outcome {
	return outcome{result: toolResult(call.ID, "Aborted: interrupted by user before this call ran.", true)}
}

// precheck looks the tool up, validates the input, runs the semantic check
// and the PreToolUse hooks and asks the permission engine. It never asks
// the user; authorize does that.
//
// It runs tool code (Check, ReadOnly) on whatever goroutine calls it — the
// stream's early start among them — so a panic there becomes this call's
// error result instead of crashing hew.
func (p *pipeline) precheck(ctx context.Context, call llm.Block) (pr *prepared) {
	defer func() {
		if r := recover(); r != nil {
			failed := &prepared{call: call, input: call.Input, receipt: Receipt{ToolUseID: call.ID, Tool: call.Name, Start: time.Now()}}
			pr = p.finish(failed, fmt.Sprintf("Error: internal failure while checking the %s call: %v", call.Name, r), "validation")
		}
	}()
	return p.precheckUnsafe(ctx, call)
}

// precheckUnsafe is precheck without the panic guard.
func (p *pipeline) precheckUnsafe(ctx context.Context, call llm.Block) *prepared {
	input := call.Input
	if len(strings.TrimSpace(string(input))) == 0 {
		input = json.RawMessage(`{}`)
	}
	pr := &prepared{call: call, input: input, receipt: Receipt{
		ToolUseID: call.ID, Tool: call.Name, Input: shortenInput(input, receiptValueLimit), Start: time.Now(),
	}}
	reg := p.cfg.Tools
	t, ok := reg.Get(call.Name)
	if !ok {
		return p.finish(pr, fmt.Sprintf("Error: unknown tool %q. Available tools: %s.", call.Name, strings.Join(reg.Names(), ", ")), "lookup")
	}
	if !reg.Visible(call.Name) {
		return p.finish(pr, fmt.Sprintf("Error: tool %q is deferred; load it first with tool_search {\"query\": \"select:%s\"}.", call.Name, call.Name), "lookup")
	}
	pr.tool = t
	if msg := p.check(t, call.Name, input); msg != "" {
		return p.finish(pr, msg, "validation")
	}
	if p.cfg.Hooks != nil {
		h, err := p.hook(ctx, true, p.payload("PreToolUse", call.Name, input))
		if err != nil { // fail closed: a broken guard must not wave calls through
			return p.deny(pr, "PreToolUse hook failed: "+err.Error(), "hook")
		}
		if h.Block {
			return p.deny(pr, "blocked by hook: "+orDefault(h.Reason, "no reason given"), "hook")
		}
		if len(h.UpdatedInput) > 0 {
			if msg := p.check(t, call.Name, h.UpdatedInput); msg != "" {
				return p.finish(pr, "A PreToolUse hook rewrote the input and the result is invalid: "+msg, "hook")
			}
			input = h.UpdatedInput
			pr.input = input
			pr.receipt.Input = shortenInput(input, receiptValueLimit)
		}
		pr.hookContext = h.AdditionalContext
		if h.Message != "" {
			p.emit(Notice{Level: "info", Text: h.Message})
		}
		if h.Stop { // continue: false — the call does not run and the turn ends
			pr.out.stop = orDefault(h.Reason, "a PreToolUse hook ended the turn")
			return p.finish(pr, "Not run: a PreToolUse hook stopped the turn ("+pr.out.stop+").", "hook")
		}
		pr.verdict = p.checkPermission(call.Name, input)
		switch permission.Decision(h.Permission) {
		case permission.Deny:
			pr.verdict = permission.Verdict{Decision: permission.Deny, Reason: orDefault(h.Reason, "denied by a PreToolUse hook"), Source: "hook"}
		case permission.Allow, permission.Ask:
			// A deny rule holds even against a hook.
			if pr.verdict.Decision != permission.Deny {
				pr.verdict = permission.Verdict{Decision: permission.Decision(h.Permission), Reason: orDefault(h.Reason, "decided by a PreToolUse hook"), Source: "hook"}
			}
		}
	} else {
		pr.verdict = p.checkPermission(call.Name, input)
	}
	pr.readOnly = t.ReadOnly(input)
	pr.parallel = pr.readOnly
	if c, ok := t.(tools.Concurrent); ok && c.Concurrent(input) {
		pr.parallel = true
	}
	return pr
}

// check is schema validation then the tool's semantic check, each with its
// own wording so the model can tell a malformed call from a refused one.
func (p *pipeline) check(t tools.Tool, name string, input json.RawMessage) string {
	if err := validateInput(p.cfg.Tools, name, input); err != nil {
		return "InputValidationError: " + err.Error()
	}
	if c, ok := t.(tools.Checker); ok {
		if err := c.Check(p.cfg.Env, input); err != nil {
			return fmt.Sprintf("Error: %s refused the input: %v", name, err)
		}
	}
	return ""
}

func (p *pipeline) checkPermission(name string, input json.RawMessage) permission.Verdict {
	if p.cfg.Permissions == nil {
		return permission.Verdict{Decision: permission.Allow, Reason: "no permission engine", Source: "default"}
	}
	return p.cfg.Permissions.Check(permission.Request{Tool: name, Input: input, Mode: p.mode()})
}

func (p *pipeline) payload(event, tool string, input json.RawMessage) HookPayload {
	hp := HookPayload{Event: event, Tool: tool, Input: input, SessionID: p.cfg.SessionID}
	if p.cfg.Env != nil {
		hp.Cwd = p.cfg.Env.Root
	}
	return hp
}

// hook calls the hook runner, turning a panic into an error.
func (p *pipeline) hook(ctx context.Context, pre bool, hp HookPayload) (h HookOutcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			h, err = HookOutcome{}, fmt.Errorf("hook runner crashed: %v", r)
		}
	}()
	if pre {
		return p.cfg.Hooks.PreToolUse(ctx, hp), nil
	}
	return p.cfg.Hooks.PostToolUse(ctx, hp), nil
}

// deny ends a call with a permission denial.
func (p *pipeline) deny(pr *prepared, reason, source string) *prepared {
	pr.receipt.Decision, pr.receipt.DecidedBy, pr.receipt.Reason = "deny", source, reason
	pr.out.denial = &Denial{ToolUseID: pr.call.ID, Tool: pr.call.Name, Input: pr.input, Reason: reason}
	p.emit(PermissionDecided{ID: pr.call.ID, Tool: pr.call.Name, Decision: "deny", Reason: reason, Source: source})
	next := "choose another approach or ask the user"
	if _, headless := p.cfg.Approver.(Headless); headless || p.cfg.Approver == nil {
		// Nobody is there to ask: say so rather than suggest asking.
		next = "choose another approach, or finish and say what you would need allowed (nobody can answer questions in this run)"
	}
	return p.finish(pr, "Action denied: "+reason+". Do not retry the same action; "+next+".", source)
}

// authorize turns the verdict into allow or deny, asking the classifier or
// the user when needed. It reports false when the call must not run (its
// outcome is then final in pr).
func (p *pipeline) authorize(ctx context.Context, pr *prepared) bool {
	if pr.done {
		return false
	}
	if ctx.Err() != nil {
		pr.done, pr.out = true, p.aborted(pr.call)
		return false
	}
	v := p.autoFallback(pr.verdict)
	pr.verdict = v
	source := v.Source
	switch {
	case v.Decision == permission.Deny:
		p.deny(pr, orDefault(v.Reason, "denied by policy"), orDefault(source, "policy"))
		return false
	case v.Classify:
		ok, reason := p.classify(ctx, pr)
		if ctx.Err() != nil {
			pr.done, pr.out = true, p.aborted(pr.call)
			return false
		}
		p.afterClassify(pr, ok)
		if !ok {
			p.deny(pr, "auto-mode classifier: "+reason, "classifier")
			return false
		}
		v = permission.Verdict{Decision: permission.Allow, Reason: reason, Source: "classifier"}
	case v.Decision == permission.Ask:
		ok, how, reason := p.approve(ctx, pr)
		if ctx.Err() != nil {
			pr.done, pr.out = true, p.aborted(pr.call)
			return false
		}
		if !ok {
			p.deny(pr, reason, how)
			return false
		}
		v = permission.Verdict{Decision: permission.Allow, Reason: reason, Source: how}
	}
	pr.receipt.Decision, pr.receipt.DecidedBy, pr.receipt.Reason = "allow", orDefault(v.Source, "default"), v.Reason
	p.emit(PermissionDecided{ID: pr.call.ID, Tool: pr.call.Name, Decision: "allow", Reason: v.Reason, Source: pr.receipt.DecidedBy})
	return true
}

// approve asks the Approver; nil denies (headless).
func (p *pipeline) approve(ctx context.Context, pr *prepared) (ok bool, source, reason string) {
	req := ApprovalRequest{ID: pr.call.ID, Tool: pr.call.Name, Input: pr.input, Subject: tools.SubjectOf(pr.tool, pr.input),
		Reason: pr.verdict.Reason, Diff: tools.PreviewOf(pr.tool, p.cfg.Env, pr.input), Suggest: pr.verdict.Suggest}
	if sc, ok := p.cfg.Permissions.(interface {
		GrantScope(tool string, input json.RawMessage) string
	}); ok {
		req.SessionScope = sc.GrantScope(pr.call.Name, pr.input)
	}
	p.emit(req)
	if h, headless := p.cfg.Approver.(Headless); headless || p.cfg.Approver == nil {
		return false, "headless", "approval required (" + orDefault(pr.verdict.Reason, "policy asks") + ") and nobody can answer in this mode; " +
			orDefault(h.Hint, "allow it with a rule or a permission mode")
	}
	ans, note := p.cfg.Approver.Approve(ctx, req)
	switch ans {
	case ApproveOnce:
		return true, "user", orDefault(note, "approved by the user")
	case ApproveSession:
		if p.cfg.Permissions != nil {
			p.cfg.Permissions.Grant(pr.call.Name, pr.input)
		}
		return true, "user:session", orDefault(note, "approved by the user for this session")
	case ApproveAlways:
		saver, ok := p.cfg.Permissions.(RuleSaver)
		if req.Suggest == "" || !ok {
			if p.cfg.Permissions != nil {
				p.cfg.Permissions.Grant(pr.call.Name, pr.input)
			}
			return true, "user:session", "approved by the user for this session (no rule could be saved)"
		}
		file, err := saver.Remember(req.Suggest)
		if err != nil {
			p.emit(Notice{Level: "warn", Text: "could not save " + req.Suggest + ": " + err.Error() + "; approved this time only"})
			return true, "user", "approved by the user (saving the rule failed)"
		}
		p.emit(Notice{Level: "info", Text: "saved " + req.Suggest + " to " + file + "; it will not ask again"})
		return true, "user:rule", "approved by the user, who saved " + req.Suggest
	}
	reason = "the user declined"
	if note != "" && note != "the user said no" {
		reason = "the user declined: " + note
	}
	return false, "user", reason
}

// run executes an authorized call and shapes its result.
func (p *pipeline) run(ctx context.Context, pr *prepared) outcome {
	call := pr.call
	p.emit(ToolStarted{ID: call.ID, Name: call.Name, Input: pr.input, Summary: tools.Summarize(pr.tool, call.Name, pr.input)})
	start := time.Now()
	cp := p.cfg.Checkpoints
	if fn, ok := pr.tool.(tools.FileNeutral); pr.readOnly || ok && fn.ChangesNoFiles() {
		cp = nil
	}
	if cp != nil {
		if err := cp.BeforeChange(ctx, call.ID, call.Name, pr.input); err != nil {
			p.checkpointFailed(err)
			cp = nil
		}
	}
	res, err, panicked := p.invoke(ctx, pr)
	if cp != nil {
		id, files, err := cp.AfterChange(ctx, call.ID, call.Name, pr.input)
		if err != nil {
			p.checkpointFailed(err)
		}
		pr.receipt.Checkpoint, pr.receipt.Changed = id, files
	}
	content, isErr := res.Content, res.IsError
	switch {
	case panicked != "":
		value, _, _ := strings.Cut(panicked, "\n") // the stack stays in the receipt
		content, isErr = fmt.Sprintf("Error: tool %s crashed (%s); this is a bug in the tool, not in your input — try another approach.", call.Name, value), true
		pr.receipt.Panic = panicked
	case errors.Is(context.Cause(ctx), errDiscarded):
		content, isErr = "Discarded: "+errDiscarded.Error()+".", true
	case ctx.Err() != nil:
		msg := "Interrupted by user before the tool finished."
		if content != "" {
			msg += "\nPartial output:\n" + content
		}
		content, isErr = msg, true
	case err != nil:
		if content != "" {
			content += "\n"
		}
		content, isErr = content+"Error: "+err.Error(), true
	}
	if content == "" {
		content = "(no output)"
	}
	var out outcome
	if p.cfg.Hooks != nil && ctx.Err() == nil {
		ev := "PostToolUse"
		hp := p.payload(ev, call.Name, pr.input)
		hp.Result = content
		if isErr {
			ev, hp.Event, hp.Result, hp.Error = "PostToolUseFailure", "PostToolUseFailure", "", content
		}
		h, err := p.hook(ctx, false, hp)
		if err != nil {
			content += "\n\n[" + ev + " hook failed: " + err.Error() + "]"
		}
		if h.Block && h.Reason != "" {
			content += "\n\n[" + ev + " hook: " + h.Reason + "]"
		}
		if h.AdditionalContext != "" {
			content += "\n\n" + h.AdditionalContext
		}
		if h.Message != "" {
			p.emit(Notice{Level: "info", Text: h.Message})
		}
		if h.Stop {
			out.stop = orDefault(h.Reason, "a "+ev+" hook ended the turn")
		}
	}
	if pr.hookContext != "" {
		content += "\n\n" + pr.hookContext
	}
	full := len(content)
	if res.SavedAt != "" { // the tool streamed more than it returned
		if fi, err := os.Stat(res.SavedAt); err == nil && int(fi.Size()) > full {
			full = int(fi.Size())
		}
	}
	if !isErr {
		out.endTurn = res.EndTurn
	}
	shaped, stored := shapeResult(p.cfg.Env, call.ID, content, res.SavedAt)
	out.result = toolResult(call.ID, shaped, isErr)
	if !isErr {
		out.result.ToolRefs = res.Loads
	}
	out.key = runawayKey(call.Name, pr.input, content, isErr)

	pr.receipt.Start, pr.receipt.End = start, time.Now()
	pr.receipt.ResultBytes, pr.receipt.IsError, pr.receipt.StoredAt = full, isErr, stored
	pr.receipt.Network = res.Network
	for _, d := range res.Denials {
		out.denials = append(out.denials, Denial{ToolUseID: call.ID, Tool: call.Name, Input: d.Input, Reason: d.Reason})
	}
	p.record("receipt", pr.receipt)
	rc := pr.receipt
	p.emit(ToolFinished{ID: call.ID, Name: call.Name, Result: shaped, Display: res.Display, IsError: isErr,
		Elapsed: rc.End.Sub(start), Todos: res.Todos, Receipt: &rc, Denials: out.denials})
	return out
}

// checkpointFailed tells the user that /undo will not cover this change;
// the call itself goes ahead.
func (p *pipeline) checkpointFailed(err error) {
	p.emit(Notice{Level: "warn", Text: "checkpoint failed, /undo cannot take this change back: " + err.Error()})
}

// one runs a single call through every step, outside any batch.
func (p *pipeline) one(ctx context.Context, call llm.Block) outcome {
	if ctx.Err() != nil {
		return p.aborted(call)
	}
	pr := p.precheck(ctx, call)
	if !p.authorize(ctx, pr) {
		return pr.out
	}
	return p.safeRun(ctx, pr)
}

// safeRun is run with a last line of defence: a panic outside the tool
// itself (a hook runner, a recorder) still yields an error result.
func (p *pipeline) safeRun(ctx context.Context, pr *prepared) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = outcome{result: toolResult(pr.call.ID, fmt.Sprintf("Error: internal failure while running %s: %v", pr.call.Name, r), true)}
		}
	}()
	return p.run(ctx, pr)
}

// invoke calls the tool with panic recovery and a per-call timeout. A tool
// that ignores cancellation is given up after the grace period so Ctrl+C
// always ends the turn.
func (p *pipeline) invoke(ctx context.Context, pr *prepared) (res tools.Result, err error, panicked string) {
	cctx, cancel := context.WithCancel(ctx)
	timeout := p.cfg.ToolTimeout
	if timeout <= 0 {
		timeout = DefaultToolTimeout
	}
	if !tools.IsSelfTimed(pr.tool) {
		cctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	type ret struct {
		res   tools.Result
		err   error
		panic string
	}
	ch := make(chan ret, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- ret{panic: fmt.Sprintf("%v\n%s", r, firstLines(string(debug.Stack()), 12))}
			}
		}()
		r, e := pr.tool.Run(tools.WithCallID(cctx, pr.call.ID), p.cfg.Env, pr.input)
		ch <- ret{res: r, err: e}
	}()
	var r ret
	select {
	case r = <-ch:
	case <-cctx.Done():
		select {
		case r = <-ch:
		case <-time.After(p.grace):
			r.err = cctx.Err()
		}
	}
	if r.panic != "" {
		return r.res, nil, r.panic
	}
	if ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) && (r.err != nil || r.res.Content == "") {
		r.err = fmt.Errorf("%s timed out after %s", pr.call.Name, timeout)
	}
	return r.res, r.err, ""
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
