// Package agenttest holds small fakes for testing code that drives the agent
// loop: a scripted model provider, configurable tools and a checker for the
// tool_use / tool_result pairing invariant. They are deterministic and
// need no network.
package agenttest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// Step is one scripted model answer.
type Step struct {
	Text     string
	Thinking string
	// Calls are the tool_use blocks of the answer (ID, Name, Input).
	Calls []llm.Block
	// Stop overrides the stop reason (default tool_use with calls, else end_turn).
	Stop  llm.StopReason
	Usage llm.Usage
	// Err is returned instead of an answer, after the events.
	Err error
	// Retries is the number of failed attempts announced with EvRetry
	// before the answer; each is preceded by the answer's first events.
	Retries int
	// NoToolDone leaves out EvToolDone events (providers that do not report them).
	NoToolDone bool
	// AfterToolDone runs after the EvToolDone of call i, while the answer
	// is still streaming.
	AfterToolDone func(i int)
	// Before runs before anything is streamed (it may block on ctx).
	Before func(ctx context.Context)
}

// Call builds a tool_use block.
func Call(id, name, input string) llm.Block {
	return llm.Block{Type: llm.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}

// ErrScriptExhausted is returned when the model is asked more often than scripted.
var ErrScriptExhausted = errors.New("agenttest: no scripted answer left")

// Provider is a scripted llm.Provider. Main requests take the next Step;
// side requests (Purpose other than main) are answered from Side.
type Provider struct {
	mu    sync.Mutex
	steps []Step
	next  int
	// Side maps a purpose to its answer text.
	Side map[llm.Purpose]string
	// OnRequest sees every request (main and side) before it is answered.
	OnRequest func(req *llm.Request)
	requests  []*llm.Request
}

// NewProvider returns a provider answering with steps in order.
func NewProvider(steps ...Step) *Provider { return &Provider{steps: steps} }

// Name implements llm.Provider.
func (p *Provider) Name() string { return "agenttest" }

// Requests returns copies of the main-loop requests received so far.
func (p *Provider) Requests() []*llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*llm.Request(nil), p.requests...)
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	cp := *req
	cp.Messages = append([]llm.Message(nil), req.Messages...)
	if p.OnRequest != nil {
		p.OnRequest(&cp)
	}
	if req.Purpose != "" && req.Purpose != llm.PurposeMain {
		p.mu.Lock()
		text := p.Side[req.Purpose]
		p.mu.Unlock()
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: text}}},
			StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}, Model: req.Model}, nil
	}
	p.mu.Lock()
	p.requests = append(p.requests, &cp)
	if p.next >= len(p.steps) {
		p.mu.Unlock()
		return nil, ErrScriptExhausted
	}
	st := p.steps[p.next]
	p.next++
	p.mu.Unlock()

	if st.Before != nil {
		st.Before(ctx)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := 0; i < st.Retries; i++ {
		if st.Text != "" {
			onEvent(llm.Event{Type: llm.EvTextDelta, Text: st.Text})
		}
		for j, c := range st.Calls {
			if !st.NoToolDone {
				b := c
				onEvent(llm.Event{Type: llm.EvToolDone, Index: j + 1, Block: &b})
			}
		}
		onEvent(llm.Event{Type: llm.EvRetry, Attempt: i + 1, Err: errors.New("overloaded")})
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	if st.Thinking != "" {
		onEvent(llm.Event{Type: llm.EvThinkingDelta, Text: st.Thinking})
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockThinking, Text: st.Thinking})
	}
	if st.Text != "" {
		half := len(st.Text) / 2
		onEvent(llm.Event{Type: llm.EvTextDelta, Text: st.Text[:half]})
		onEvent(llm.Event{Type: llm.EvTextDelta, Text: st.Text[half:]})
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: st.Text})
	}
	for i, c := range st.Calls {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := llm.Block{Type: llm.BlockToolUse, ID: c.ID, Name: c.Name}
		onEvent(llm.Event{Type: llm.EvToolStart, Index: i + 1, Block: &start})
		onEvent(llm.Event{Type: llm.EvToolDelta, Index: i + 1, Text: string(c.Input)})
		if !st.NoToolDone {
			b := c
			onEvent(llm.Event{Type: llm.EvToolDone, Index: i + 1, Block: &b})
		}
		if st.AfterToolDone != nil {
			st.AfterToolDone(i)
		}
		msg.Content = append(msg.Content, c)
	}
	if st.Err != nil {
		return nil, st.Err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stop := st.Stop
	if stop == "" {
		stop = llm.StopEndTurn
		if len(st.Calls) > 0 {
			stop = llm.StopToolUse
		}
	}
	u := st.Usage
	if u == (llm.Usage{}) {
		u = llm.Usage{InputTokens: 100, OutputTokens: 20}
	}
	onEvent(llm.Event{Type: llm.EvUsage, Usage: &u})
	return &llm.Response{Message: msg, StopReason: stop, Usage: u, Model: req.Model}, nil
}

// Tool is a configurable tools.Tool.
type Tool struct {
	ToolName string
	// RO is returned by ReadOnly.
	RO bool
	// InputSchema defaults to an object with no required fields.
	InputSchema string
	// Fn runs the call; nil returns "ok".
	Fn func(ctx context.Context, input json.RawMessage) (tools.Result, error)
	// CheckFn is the semantic check; nil accepts everything.
	CheckFn func(input json.RawMessage) error
}

// Name implements tools.Tool.
func (t *Tool) Name() string { return t.ToolName }

// Description implements tools.Tool.
func (t *Tool) Description() string { return "test tool " + t.ToolName }

// Schema implements tools.Tool.
func (t *Tool) Schema() json.RawMessage {
	if t.InputSchema == "" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return json.RawMessage(t.InputSchema)
}

// ReadOnly implements tools.Tool.
func (t *Tool) ReadOnly(json.RawMessage) bool { return t.RO }

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, _ *tools.Env, input json.RawMessage) (tools.Result, error) {
	if t.Fn == nil {
		return tools.Result{Content: "ok"}, nil
	}
	return t.Fn(ctx, input)
}

// Check implements tools.Checker.
func (t *Tool) Check(_ *tools.Env, input json.RawMessage) error {
	if t.CheckFn == nil {
		return nil
	}
	return t.CheckFn(input)
}

// CheckPairing is llm.ValidateHistory, the one validator of the neutral
// history, under the name the tests use.
func CheckPairing(msgs []llm.Message) error { return llm.ValidateHistory(msgs) }
