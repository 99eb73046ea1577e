package agent

import (
	"context"

	"github.com/hew-dev/hew/internal/llm"
)

// Executor runs single tool calls through the same pipeline as the loop
// (validate → hooks → permission → run → hooks → shape) without a
// conversation. `hew mcp serve` uses it to expose hew's tools.
type Executor struct {
	cfg  Config
	pipe *pipeline
}

// NewExecutor builds an executor from cfg. Provider and Model, when set,
// serve the auto-mode classifier; everything else is as for New.
func NewExecutor(cfg Config) *Executor {
	fillDefaults(&cfg)
	e := &Executor{cfg: cfg}
	e.pipe = newPipeline(&e.cfg)
	if cfg.Provider != nil {
		e.pipe.side = func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			req.Model = e.cfg.Model
			return e.cfg.Provider.Stream(ctx, req, func(llm.Event) {})
		}
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
