package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

var faults = []string{"ok", "ok", "ok", "err", "panic", "slow", "cancel", "big", "same", "hang", "checkpanic"}

// randomScript builds model answers with random calls, faults, stop
// reasons, API errors and retries.
func randomScript(r *rand.Rand, n int, cancel func()) []step {
	steps := make([]step, n)
	id := 0
	for i := range steps {
		st := step{Text: fmt.Sprintf("answer %d", i), Retries: r.IntN(4) / 3, NoToolDone: r.IntN(4) == 0}
		if r.IntN(3) == 0 {
			id = 0 // numbered per answer, as some OpenAI-compatible servers do (issue 12.8)
		}
		for k := r.IntN(5); k > 0; k-- {
			id++
			name := []string{"r", "r", "w", "w", "nope"}[r.IntN(5)]
			perm := []string{"allow", "allow", "allow", "deny", "ask"}[r.IntN(5)]
			input := fmt.Sprintf(`{"fault":%q,"perm":%q,"n":%d}`, faults[r.IntN(len(faults))], perm, r.IntN(2))
			if r.IntN(15) == 0 {
				input = `{"fault":"ok","perm":` // arguments cut off
			}
			st.Calls = append(st.Calls, call(fmt.Sprintf("toolu_%d", id), name, input))
		}
		switch r.IntN(12) {
		case 0:
			st.Stop = llm.StopMaxTokens
		case 1:
			st.Err = &llm.APIError{Status: 500, Message: "internal"}
		case 2:
			st.Err = &llm.APIError{Status: 400, Message: "prompt is too long"}
		case 3:
			st.Before = func(ctx context.Context) { cancel(); <-ctx.Done() }
		case 4:
			st.AfterToolDone = func(int) { cancel() }
		}
		steps[i] = st
	}
	return steps
}

type cancelBox struct {
	mu sync.Mutex
	fn context.CancelFunc
}

func (c *cancelBox) set(f context.CancelFunc) { c.mu.Lock(); c.fn = f; c.mu.Unlock() }
func (c *cancelBox) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fn != nil {
		c.fn()
	}
}

func faultTool(name string, ro bool, cb *cancelBox) *agenttest.Tool {
	return &agenttest.Tool{ToolName: name, RO: ro,
		// A bug in a tool's check (issue 12.9) must become that call's
		// error result, also when the call starts while the model streams.
		CheckFn: func(in json.RawMessage) error {
			if strings.Contains(string(in), `"checkpanic"`) {
				panic("check bug")
			}
			return nil
		},
		InputSchema: `{"type":"object","properties":{"fault":{"type":"string"},"perm":{"type":"string"},"n":{"type":"integer"}},"required":["fault"]}`,
		Fn: func(ctx context.Context, in json.RawMessage) (tools.Result, error) {
			var v struct{ Fault string }
			json.Unmarshal(in, &v)
			switch v.Fault {
			case "err":
				return tools.Result{}, errors.New("failed")
			case "panic":
				panic("tool bug")
			case "slow":
				select {
				case <-ctx.Done():
					return tools.Result{}, ctx.Err()
				case <-time.After(time.Millisecond):
				}
			case "hang": // ignores cancellation; runs into the per-call timeout
				time.Sleep(30 * time.Millisecond)
			case "cancel":
				cb.cancel()
			case "big":
				return tools.Result{Content: strings.Repeat("z", 40000)}, nil
			case "same":
				return tools.Result{Content: "same"}, nil
			}
			return tools.Result{Content: "ok " + string(in)}, nil
		}}
}

// TestPairingProperty runs random conversations with faults and
// cancellations and checks the pairing invariant on every request the
// provider receives and on the final history.
func TestPairingProperty(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 60
	}
	validStops := map[StopReason]bool{StopCompleted: true, StopMaxTurns: true, StopMaxBudget: true, StopAborted: true, StopError: true}
	stops := map[StopReason]int{}
	defer func() { t.Logf("stop reasons over %d seeds: %v", seeds, stops) }()
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		cb := &cancelBox{}
		p := agenttest.NewProvider(randomScript(r, 1+r.IntN(8), cb.cancel)...)
		var reqErr error
		var reqMu sync.Mutex
		p.OnRequest = func(req *llm.Request) {
			if req.Purpose != llm.PurposeMain {
				return
			}
			if err := agenttest.CheckPairing(req.Messages); err != nil {
				reqMu.Lock()
				if reqErr == nil {
					reqErr = err
				}
				reqMu.Unlock()
			}
		}
		pm := &perms{fn: func(req permission.Request) permission.Verdict {
			var v struct{ Perm string }
			json.Unmarshal(req.Input, &v)
			return permission.Verdict{Decision: permission.Decision(orDefault(v.Perm, "allow")), Reason: "test", Source: "test"}
		}}
		ap := &approver{fn: func(ApprovalRequest) (Approval, string) {
			if r.IntN(2) == 0 {
				return ApproveOnce, ""
			}
			return ApproveDeny, ""
		}}
		hooks := &randomHooks{r: rand.New(rand.NewPCG(uint64(seed), 11))}
		h := newHarness(t, p, []tools.Tool{faultTool("r", true, cb), faultTool("w", false, cb)}, func(c *Config) {
			c.Permissions, c.Approver = pm, ap
			if r.IntN(2) == 0 {
				c.Hooks = hooks
			}
			c.MaxTurns = 1 + r.IntN(6)
			c.MaxBudgetTokens = r.IntN(4) * 300 // 0 = no limit; each answer costs 120
			c.ToolTimeout = 5 * time.Millisecond
			if r.IntN(2) == 0 {
				c.Context = &fakeContext{}
			}
			c.NoStreamingTools = r.IntN(3) == 0
		})
		h.a.pipe.grace = time.Millisecond
		for turn := 0; turn < 1+r.IntN(3); turn++ {
			ctx, cancel := context.WithCancel(context.Background())
			cb.set(cancel)
			res := h.a.Run(ctx, fmt.Sprintf("task %d", turn))
			cancel()
			stops[res.StopReason]++
			if !validStops[res.StopReason] {
				t.Fatalf("seed %d: stop reason %q", seed, res.StopReason)
			}
			if err := agenttest.CheckPairing(h.a.History()); err != nil {
				js, _ := json.MarshalIndent(h.a.History(), "", " ")
				t.Fatalf("seed %d turn %d: history violates pairing after %s: %v\n%s", seed, turn, res.StopReason, err, js)
			}
		}
		if reqErr != nil {
			t.Fatalf("seed %d: a request violated pairing: %v", seed, reqErr)
		}
	}
}

// randomHooks fails in every way a hook can: blocks, bad rewrites, stops,
// permission overrides and a crashing runner.
type randomHooks struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (h *randomHooks) pick() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.r.IntN(16)
}

func (h *randomHooks) PreToolUse(_ context.Context, p HookPayload) HookOutcome {
	switch h.pick() {
	case 0:
		return HookOutcome{Block: true, Reason: "pre-hook says no"}
	case 1:
		return HookOutcome{UpdatedInput: json.RawMessage(`{"perm":"allow"}`)} // invalid: no fault
	case 2:
		return HookOutcome{UpdatedInput: json.RawMessage(`{"fault":"ok"}`)}
	case 3:
		return HookOutcome{Stop: true, Reason: "freeze"}
	case 4:
		return HookOutcome{Permission: "ask"}
	case 5:
		panic("hook runner bug")
	}
	return HookOutcome{}
}

func (h *randomHooks) PostToolUse(_ context.Context, p HookPayload) HookOutcome {
	switch h.pick() {
	case 0:
		return HookOutcome{Block: true, Reason: "post-hook feedback"}
	case 1:
		return HookOutcome{Stop: true}
	case 2:
		panic("post hook runner bug")
	case 3:
		return HookOutcome{AdditionalContext: "lint: 3 warnings"}
	}
	return HookOutcome{}
}
