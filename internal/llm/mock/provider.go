package mock

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

// Provider is the in-process mock model (`--mock`).
type Provider struct {
	engine *Engine
	// Retry is the policy applied to injected faults. Its waits are cut
	// short by default: nothing real is waiting on the other side.
	Retry *retry.Policy
}

// New makes the mock provider: scripted by sc, or answering plain intents
// when sc is nil.
func New(sc *scenario.Scenario) *Provider {
	pol := retry.Default()
	pol.Sleep = func(ctx context.Context, d time.Duration) error {
		return retry.SleepContext(ctx, min(d, 10*time.Millisecond))
	}
	return &Provider{engine: NewEngine(sc), Retry: pol}
}

// Name is the provider name shown to users.
func (p *Provider) Name() string { return "mock" }

// Remaining reports unserved scenario turns.
func (p *Provider) Remaining() int { return p.engine.Remaining() }

// Stream answers req like a real provider would: text in several deltas,
// tool calls with streamed arguments, usage, and the scenario's faults
// (retried through the same policy as the HTTP clients).
func (p *Provider) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if onEvent == nil {
		onEvent = func(llm.Event) {}
	}
	var resp *llm.Response
	err := p.Retry.Do(ctx, func(ctx context.Context) error {
		pl := p.engine.Plan(req)
		r, err := play(ctx, pl, onEvent)
		if err == nil {
			p.engine.Delivered(pl)
			resp = r
		}
		return err
	}, onEvent)
	if err != nil {
		return nil, err
	}
	resp.Model = req.Model
	if resp.Model == "" {
		resp.Model = "mock"
	}
	return resp, nil
}

// FaultHeader is the response header an injected fault carries.
func FaultHeader(f *scenario.Fault) http.Header {
	h := http.Header{}
	if f.RetryAfter > 0 {
		h.Set("Retry-After", strconv.FormatFloat(f.RetryAfter, 'f', -1, 64))
	}
	if f.RetryAfterMS > 0 {
		h.Set("Retry-After-Ms", strconv.Itoa(f.RetryAfterMS))
	}
	return h
}

// FaultType and FaultMessage give an injected error its server-like words.
func FaultType(f *scenario.Fault) string {
	if f.Type != "" {
		return f.Type
	}
	switch f.Status {
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	}
	if f.Status >= 500 {
		return "api_error"
	}
	return "error"
}

// FaultMessage is the message of an injected error.
func FaultMessage(f *scenario.Fault) string {
	if f.Message != "" {
		return f.Message
	}
	if f.Status == 529 {
		return "Overloaded"
	}
	if t := http.StatusText(f.Status); t != "" {
		return t + " (injected by the mock scenario)"
	}
	return fmt.Sprintf("error %d (injected by the mock scenario)", f.Status)
}

// play streams one attempt of a plan.
func play(ctx context.Context, pl Plan, emit func(llm.Event)) (*llm.Response, error) {
	if pl.Fault != nil {
		return nil, retry.HTTPError(pl.Fault.Status, FaultHeader(pl.Fault), FaultType(pl.Fault), FaultMessage(pl.Fault))
	}
	chunks := 0
	// step counts one streamed chunk and applies the chunk-level faults.
	step := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if pl.ChunkDelay > 0 {
			if err := retry.SleepContext(ctx, pl.ChunkDelay); err != nil {
				return err
			}
		}
		chunks++
		if pl.StreamError != nil && chunks > pl.StreamError.AfterChunks {
			return retry.StreamError(pl.StreamError.Type, pl.StreamError.Message)
		}
		if pl.CutAfter > 0 && chunks > pl.CutAfter {
			return retry.Cut("message_stop", io.ErrUnexpectedEOF)
		}
		return nil
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	idx := 0
	for _, part := range []struct {
		typ  llm.BlockType
		ev   llm.EventType
		text string
	}{{llm.BlockThinking, llm.EvThinkingDelta, pl.Thinking}, {llm.BlockText, llm.EvTextDelta, pl.Text}} {
		if part.text == "" {
			continue
		}
		for _, piece := range Pieces(part.text, pl.ChunkSize) {
			if err := step(); err != nil {
				return nil, err
			}
			emit(llm.Event{Type: part.ev, Index: idx, Text: piece})
		}
		msg.Content = append(msg.Content, llm.Block{Type: part.typ, Text: part.text})
		idx++
	}
	calls := pl.ToolCalls
	if pl.Stop == llm.StopMaxTokens {
		calls = nil // cut by the output limit: a real client drops them too
	}
	for _, c := range calls {
		if err := step(); err != nil {
			return nil, err
		}
		emit(llm.Event{Type: llm.EvToolStart, Index: idx, Block: &llm.Block{Type: llm.BlockToolUse, ID: c.ID, Name: c.Name}})
		for _, piece := range Pieces(string(c.Input), pl.ChunkSize*4) {
			if err := step(); err != nil {
				return nil, err
			}
			emit(llm.Event{Type: llm.EvToolDelta, Index: idx, Text: piece})
		}
		done := c
		emit(llm.Event{Type: llm.EvToolDone, Index: idx, Block: &done})
		msg.Content = append(msg.Content, c)
		idx++
	}
	if err := step(); err != nil {
		return nil, err
	}
	u := pl.Usage
	emit(llm.Event{Type: llm.EvUsage, Usage: &u})
	return &llm.Response{Message: msg, StopReason: pl.Stop, Usage: pl.Usage}, nil
}
