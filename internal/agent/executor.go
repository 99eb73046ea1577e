package agent

import (
	"context"
	"sync"

	"github.com/hew-dev/hew/internal/llm"
)

// Executor runs single tool calls through the same pipeline as the loop
// (validate → hooks → permission → run → hooks → shape) without a
// conversation. `hew mcp serve` uses it to expose hew's tools.
type Executor struct {
	cfg  Config
	pipe *pipeline

	mu          sync.Mutex
	usage       llm.Usage
	cost        float64
	costUnknown bool
}

// NewExecutor builds an executor from cfg. Provider and Model, when set,
// serve the auto-mode classifier, whose usage the executor counts (Usage,
// UsageUpdated events) as a session counts its side requests; everything
// else is as for New.
func NewExecutor(cfg Config) *Executor {
	fillDefaults(&cfg)
	e := &Executor{cfg: cfg}
	e.pipe = newPipeline(&e.cfg)
	if cfg.Provider != nil {
		e.pipe.side = e.sideRequest
	}
	return e
}

// Execute runs one tool_use block and returns its tool_result block. It
// never panics; failures, denials and cancellation are error results.
func (e *Executor) Execute(ctx context.Context, call llm.Block) llm.Block {
	out := e.pipe.one(ctx, call)
	out.result.ID = call.ID
	return out.result
}

// Usage is what the executor's side requests used so far, and their cost
// in USD (-1 when hew knows no price for the model).
func (e *Executor) Usage() (llm.Usage, float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.costUnknown {
		return e.usage, -1
	}
	return e.usage, e.cost
}

// sideRequest sends a side request (the classifier) with the executor's
// model and counts its usage, also when the answer ends in an error.
func (e *Executor) sideRequest(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	req.Model = e.cfg.Model
	resp, err := llm.Metered{Provider: e.cfg.Provider, OnUsage: e.account}.Stream(ctx, req, func(llm.Event) {})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

func (e *Executor) account(model string, u llm.Usage) {
	usd, known := llm.EstimateCost(model, u)
	e.mu.Lock()
	e.usage.Add(u)
	e.cost += usd
	e.costUnknown = e.costUnknown || !known
	total, cost := e.usage, e.cost
	if e.costUnknown {
		cost = -1
	}
	e.mu.Unlock()
	e.pipe.emit(UsageUpdated{Request: u, Total: total, CostUSD: cost})
}
