package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// Agent is one conversation: a single history, the model that continues
// it and the tool pipeline. Run handles one user message at a time; the
// other methods may be called between (or, for reads, during) turns.
type Agent struct {
	cfg  Config
	pipe *pipeline

	turnMu sync.Mutex // one turn at a time

	mu          sync.Mutex
	provider    llm.Provider
	model       string
	mode        permission.Mode
	history     []llm.Message
	usage       llm.Usage
	cost        float64
	costUnknown bool
	intent      string
	costWarned  bool // the cost limit was found unenforceable (turn goroutine only)
	// turn-local accounting, reset by Run.
	turnUsage   llm.Usage
	turnCost    float64
	turnUnknown bool
	// reload is set by SetHistory: the next turn loads again the deferred
	// tools the history's results loaded (tool_search, plan mode), once
	// the session's tools (MCP ones too) are all registered.
	reload bool
}

// New checks cfg, fills defaults and returns an agent with an empty history.
func New(cfg Config) (*Agent, error) {
	if cfg.Provider == nil {
		return nil, errors.New("agent: no model provider configured")
	}
	fillDefaults(&cfg)
	a := &Agent{cfg: cfg, provider: cfg.Provider, model: cfg.Model, mode: cfg.Mode}
	a.pipe = newPipeline(&a.cfg)
	a.pipe.mode = a.Mode
	a.pipe.side = a.sideRequest
	a.pipe.intent = func() string {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.intent
	}
	a.cfg.Tools.SetNativeLoading(func() bool {
		a.mu.Lock()
		p, model := a.provider, a.model
		a.mu.Unlock()
		return llm.DefersNatively(p, model)
	})
	return a, nil
}

func fillDefaults(cfg *Config) {
	if cfg.Tools == nil {
		cfg.Tools = tools.NewRegistry()
	}
	if cfg.Env == nil {
		cfg.Env = &tools.Env{}
	}
	if cfg.Env.Reads == nil {
		cfg.Env.Reads = tools.NewReadTracker()
	}
	if cfg.Env.SessionID == "" {
		cfg.Env.SessionID = cfg.SessionID
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 50
	}
	if cfg.Mode == "" {
		cfg.Mode = permission.ModeDefault
	}
	if cfg.ToolTimeout <= 0 {
		cfg.ToolTimeout = DefaultToolTimeout
	}
}

// History returns a copy of the conversation so far.
func (a *Agent) History() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.history)
}

// SetHistory replaces the conversation (resume). The caller provides a
// protocol-valid history, as session.Load returns it.
func (a *Agent) SetHistory(h []llm.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = slices.Clone(h)
	a.reload = true
}

// reloadDeferred loads again, after a resume, the deferred tools that
// results in the history loaded: the model saw them loaded (their
// definitions, or a reference the API expands), so a call must not be
// refused as "load it first".
func (a *Agent) reloadDeferred() {
	a.mu.Lock()
	if !a.reload || a.cfg.Tools == nil {
		a.mu.Unlock()
		return
	}
	a.reload = false
	h := a.history
	a.mu.Unlock()
	for _, m := range h {
		for _, b := range m.Content {
			for _, name := range b.ToolRefs {
				a.cfg.Tools.Activate(name) // false: not deferred, or gone (an MCP server not connected)
			}
		}
	}
}

// SetSystem replaces the system prompt. A session builds the agent first
// and the prompt right before the first request (after MCP servers
// connected), so it sets it then.
func (a *Agent) SetSystem(system []llm.SystemBlock) {
	a.mu.Lock()
	a.cfg.System = system
	a.mu.Unlock()
}

// SetSessionID names the session the conversation is recorded as (a
// /clear starts a new one, /resume switches); tools and hooks see it from
// the next call on. It waits for a running turn to end.
func (a *Agent) SetSessionID(id string) {
	a.turnMu.Lock()
	defer a.turnMu.Unlock()
	a.cfg.SessionID = id
	a.cfg.Env.SessionID = id
}

// SetModel switches the provider and model for the following requests.
func (a *Agent) SetModel(p llm.Provider, model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p != nil {
		a.provider = p
	}
	a.model = model
}

// Model returns the current model name.
func (a *Agent) Model() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.model
}

// SetMode changes the permission mode; it applies to the next call decided.
func (a *Agent) SetMode(m permission.Mode) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mode = m
}

// Mode returns the current permission mode.
func (a *Agent) Mode() permission.Mode {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mode
}

// Usage returns the tokens used since New and their estimated cost in USD
// (-1 when a model without a known price was used).
func (a *Agent) Usage() (llm.Usage, float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.costUnknown {
		return a.usage, -1
	}
	return a.usage, a.cost
}

// Tools returns the session's tool registry.
func (a *Agent) Tools() *tools.Registry { return a.cfg.Tools }

// Clear starts a fresh conversation (the /clear command). Usage totals are
// kept; the read receipts are dropped because the model no longer has the content.
func (a *Agent) Clear() {
	a.mu.Lock()
	a.history = nil
	a.intent = ""
	a.mu.Unlock()
	a.pipe.record("reset", []llm.Message{})
	a.cfg.Env.Reads.Forget()
}

// Restart starts a new conversation recorded as session id (/clear): the
// history and read receipts go, and nothing is written to the previous
// session, which stays resumable as it was. Usage totals are kept.
func (a *Agent) Restart(id string) {
	a.turnMu.Lock()
	defer a.turnMu.Unlock()
	a.mu.Lock()
	a.history = nil
	a.intent = ""
	a.mu.Unlock()
	a.cfg.SessionID = id
	a.cfg.Env.SessionID = id
	a.cfg.Env.Reads.Forget()
}

// Compact summarises the history on request (/compact [focus]) through the
// context manager.
func (a *Agent) Compact(ctx context.Context, focus string) error {
	if a.cfg.Context == nil {
		return errors.New("compact: no context manager configured")
	}
	a.turnMu.Lock()
	defer a.turnMu.Unlock()
	req := a.buildRequest(a.cfg.MaxOutputTokens)
	msgs, err := a.cfg.Context.Compact(ctx, req, focus)
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	a.replaceHistory(msgs, nil)
	return nil
}

// buildRequest snapshots the history into a main-loop request.
func (a *Agent) buildRequest(maxTokens int) *llm.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &llm.Request{
		Model:         a.model,
		System:        a.cfg.System,
		Messages:      slices.Clone(a.history),
		Tools:         a.cfg.Tools.Specs(),
		DeferredTools: a.cfg.Tools.DeferredSpecs(),
		MaxTokens:     maxTokens,
		Thinking:      a.cfg.Thinking,
		Purpose:       llm.PurposeMain,
	}
}

func (a *Agent) append(m llm.Message) {
	a.mu.Lock()
	if n := len(a.history); n > 0 && m.Role == llm.RoleUser {
		m = withWireIDs(a.history[n-1], m)
	}
	a.history = append(a.history, m)
	a.mu.Unlock()
	a.pipe.recordMessage(m)
}

// withWireIDs gives the results in m the provider ids of the calls they
// answer in prev (see callIDs), so the wire pairs them as the server named them.
func withWireIDs(prev, m llm.Message) llm.Message {
	wire := map[string]string{}
	for _, b := range prev.Content {
		if b.Type == llm.BlockToolUse && b.WireID != "" {
			wire[b.ID] = b.WireID
		}
	}
	if len(wire) == 0 {
		return m
	}
	m.Content = slices.Clone(m.Content)
	for i, b := range m.Content {
		if b.Type == llm.BlockToolResult && b.WireID == "" {
			m.Content[i].WireID = wire[b.ID]
		}
	}
	return m
}

// storeHistory keeps what the context manager returned for sending; the
// cheap tiers only shorten old results, so nothing is recorded.
func (a *Agent) storeHistory(msgs []llm.Message) {
	a.mu.Lock()
	a.history = slices.Clone(msgs)
	a.mu.Unlock()
}

// replaceHistory installs a compacted history. Unless it is the unchanged
// before (nil before = always a compaction), the session gets a reset
// record and the read receipts are dropped; the context manager reports
// the compaction itself. An invalid history is refused.
func (a *Agent) replaceHistory(msgs, before []llm.Message) {
	if before != nil && sameMessages(msgs, before) {
		a.storeHistory(msgs)
		return
	}
	if err := llm.ValidateHistory(msgs); err != nil {
		a.pipe.emit(Notice{Level: "warn", Text: "compaction produced an invalid history (" + err.Error() + "); kept the original"})
		return
	}
	a.storeHistory(msgs)
	a.pipe.record("reset", slices.Clone(msgs))
	a.cfg.Env.Reads.Forget()
}

// AddUsage counts usage spent on the session's behalf outside its own
// requests (a sub-agent's), so budgets, /cost and the result include it.
func (a *Agent) AddUsage(model string, u llm.Usage) { a.account(model, u, false) }

// account adds one request's usage to the totals and reports it.
func (a *Agent) account(model string, u llm.Usage, main bool) {
	usd, known := llm.EstimateCost(model, u)
	a.mu.Lock()
	a.usage.Add(u)
	a.turnUsage.Add(u)
	a.cost += usd
	a.turnCost += usd
	if !known {
		a.costUnknown, a.turnUnknown = true, true
	}
	total, cost := a.usage, a.cost
	if a.costUnknown {
		cost = -1
	}
	a.mu.Unlock()
	a.pipe.record("usage", map[string]any{"model": model, "usage": u, "main": main})
	a.pipe.emit(UsageUpdated{Request: u, Total: total, CostUSD: cost})
	if main {
		window := a.cfg.ContextWindow
		if window <= 0 {
			window = llm.LookupModel(model).ContextWindow
		}
		a.pipe.emit(ContextUpdated{Tokens: u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens, Window: window})
	}
}

// sideRequest sends a request that is not part of the conversation (the
// auto-mode classifier) with the current model and counts its usage.
func (a *Agent) sideRequest(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	a.mu.Lock()
	p, model := a.provider, a.model
	a.mu.Unlock()
	req.Model = model
	resp, err := p.Stream(ctx, req, func(llm.Event) {})
	if err != nil {
		return nil, err
	}
	a.account(model, resp.Usage, false)
	return resp, nil
}

// overBudget reports whether a token or cost limit is reached.
func (a *Agent) overBudget() (bool, string) {
	u, cost := a.Usage()
	if a.cfg.MaxBudgetTokens > 0 && u.Total() >= a.cfg.MaxBudgetTokens {
		return true, fmt.Sprintf("token budget reached: %d of %d tokens used", u.Total(), a.cfg.MaxBudgetTokens)
	}
	if a.cfg.MaxCostUSD > 0 && cost < 0 && !a.costWarned {
		a.costWarned = true
		a.pipe.emit(Notice{Level: "warn", Text: "--max-cost-usd cannot be enforced: hew knows no price for model " + a.Model() + "; use --max-budget-tokens"})
	}
	if a.cfg.MaxCostUSD > 0 && cost >= a.cfg.MaxCostUSD {
		return true, fmt.Sprintf("cost limit reached: $%.4f of $%.4f", cost, a.cfg.MaxCostUSD)
	}
	return false, ""
}

// sameMessages reports whether a and b hold the very same messages (same
// block arrays), which is how a context manager returns an untouched history.
func sameMessages(a, b []llm.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i].Content) != len(b[i].Content) {
			return false
		}
		if len(a[i].Content) > 0 && &a[i].Content[0] != &b[i].Content[0] {
			return false
		}
	}
	return true
}
