package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// timeline records tool starts and ends in order.
type timeline struct {
	mu      sync.Mutex
	log     []string
	started map[string]chan struct{}
}

func newTimeline() *timeline { return &timeline{started: map[string]chan struct{}{}} }

func (tl *timeline) startedCh(id string) chan struct{} {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	ch, ok := tl.started[id]
	if !ok {
		ch = make(chan struct{})
		tl.started[id] = ch
	}
	return ch
}

func (tl *timeline) add(s string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.log = append(tl.log, s)
}

func (tl *timeline) index(s string) int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return slices.Index(tl.log, s)
}

func (tl *timeline) has(s string) bool { return tl.index(s) >= 0 }

// idTool logs start:ID and end:ID, where ID is the "id" input field. When
// waitFor is set, the call waits until that other call has started — it can
// only finish if the two run at the same time.
func idTool(name string, ro bool, tl *timeline, waitFor map[string]string) *agenttest.Tool {
	return &agenttest.Tool{ToolName: name, RO: ro, Fn: func(ctx context.Context, in json.RawMessage) (tools.Result, error) {
		var v struct{ ID string }
		json.Unmarshal(in, &v)
		tl.add("start:" + v.ID)
		close(tl.startedCh(v.ID))
		if other, ok := waitFor[v.ID]; ok {
			select {
			case <-tl.startedCh(other):
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			case <-time.After(10 * time.Second):
				tl.add("no-overlap:" + v.ID)
			}
		}
		tl.add("end:" + v.ID)
		return tools.Result{Content: "result " + v.ID}, nil
	}}
}

func TestParallelReadsAndWriteBarrier(t *testing.T) {
	tl := newTimeline()
	read := idTool("read", true, tl, map[string]string{"r1": "r2", "r2": "r1"})
	write := idTool("write", false, tl, nil)
	p := agenttest.NewProvider(
		step{Calls: []llm.Block{
			call("r1", "read", `{"id":"r1"}`), call("r2", "read", `{"id":"r2"}`),
			call("w", "write", `{"id":"w"}`), call("r3", "read", `{"id":"r3"}`),
		}},
		step{Text: "done"},
	)
	h := newHarness(t, p, []tools.Tool{read, write}, nil)
	res := h.a.Run(context.Background(), "go")
	if res.StopReason != StopCompleted {
		t.Fatalf("result = %+v", res)
	}
	if tl.has("no-overlap:r1") || tl.has("no-overlap:r2") {
		t.Fatalf("the two reads did not run at the same time: %v", tl.log)
	}
	if !(tl.index("end:r1") < tl.index("start:w") && tl.index("end:r2") < tl.index("start:w")) {
		t.Fatalf("write started before the reads ended: %v", tl.log)
	}
	if tl.index("end:w") > tl.index("start:r3") {
		t.Fatalf("read after the write started before the write ended: %v", tl.log)
	}
	var ids []string
	for _, b := range lastResults(h.a.History()) {
		ids = append(ids, b.ID+"="+b.Content)
	}
	if got := strings.Join(ids, ","); got != "r1=result r1,r2=result r2,w=result w,r3=result r3" {
		t.Fatalf("results out of order: %s", got)
	}
	h.checkInvariants()
}

func TestStreamingExecution(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			tl := newTimeline()
			read := idTool("read", true, tl, nil)
			write := idTool("write", false, tl, nil)
			var during []string
			st := step{
				Calls: []llm.Block{call("r1", "read", `{"id":"r1"}`), call("w", "write", `{"id":"w"}`), call("r2", "read", `{"id":"r2"}`)},
				AfterToolDone: func(i int) {
					switch i {
					case 0:
						if streaming {
							select { // the read must start while the answer is still streaming
							case <-tl.startedCh("r1"):
								during = append(during, "r1 running")
							case <-time.After(10 * time.Second):
								during = append(during, "r1 not started")
							}
						} else if tl.has("start:r1") {
							during = append(during, "r1 started early")
						}
					case 1, 2:
						if tl.has("start:w") || tl.has("start:r2") {
							during = append(during, "side effect or post-barrier call started during the stream")
						}
					}
				},
			}
			p := agenttest.NewProvider(st, step{Text: "done"})
			h := newHarness(t, p, []tools.Tool{read, write}, func(c *Config) { c.NoStreamingTools = !streaming })
			res := h.a.Run(context.Background(), "go")
			want := []string(nil)
			if streaming {
				want = []string{"r1 running"}
			}
			if res.StopReason != StopCompleted || !slices.Equal(during, want) {
				t.Fatalf("during stream: %v (want %v); result %+v", during, want, res)
			}
			if n := len(eventsOf[ToolStarted](h.ev)); n != 3 {
				t.Fatalf("%d tool starts, want 3 (each call exactly once)", n)
			}
			if tl.index("end:w") > tl.index("start:r2") {
				t.Fatalf("order: %v", tl.log)
			}
			h.checkInvariants()
		})
	}
}

func TestApprovalsInModelOrder(t *testing.T) {
	tl := newTimeline()
	write := idTool("write", false, tl, nil)
	read := idTool("read", true, tl, nil)
	ap := &approver{}
	var order []string
	ap.fn = func(r ApprovalRequest) (Approval, string) {
		var v struct{ ID string }
		json.Unmarshal(r.Input, &v)
		// Every earlier approved write has already run when the next question comes.
		order = append(order, fmt.Sprintf("%s(w1 done=%v)", v.ID, tl.has("end:w1")))
		if v.ID == "w2" {
			return ApproveDeny, ""
		}
		return ApproveOnce, ""
	}
	pm := &perms{fn: func(r permission.Request) permission.Verdict {
		if r.Tool == "write" {
			return permission.Verdict{Decision: permission.Ask, Reason: "edit", Source: "mode:default"}
		}
		return permission.Verdict{Decision: permission.Allow, Source: "mode:default"}
	}}
	p := agenttest.NewProvider(
		step{Calls: []llm.Block{call("w1", "write", `{"id":"w1"}`), call("r1", "read", `{"id":"r1"}`), call("w2", "write", `{"id":"w2"}`), call("w3", "write", `{"id":"w3"}`)}},
		step{Text: "done"},
	)
	h := newHarness(t, p, []tools.Tool{read, write}, func(c *Config) { c.Approver = ap; c.Permissions = pm })
	res := h.a.Run(context.Background(), "go")
	if got := strings.Join(order, " "); got != "w1(w1 done=false) w2(w1 done=true) w3(w1 done=true)" {
		t.Fatalf("approval order = %s", got)
	}
	if len(res.Denials) != 1 || res.Denials[0].ToolUseID != "w2" || !tl.has("end:w3") || tl.has("start:w2") {
		t.Fatalf("denials = %+v, log %v", res.Denials, tl.log)
	}
	h.checkInvariants()
}

func TestCancelMidBatch(t *testing.T) {
	for _, ignoreCtx := range []bool{false, true} {
		t.Run(fmt.Sprintf("tool ignores ctx=%v", ignoreCtx), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			release := make(chan struct{})
			defer close(release)
			slow := &agenttest.Tool{ToolName: "slow", Fn: func(c context.Context, _ json.RawMessage) (tools.Result, error) {
				cancel() // the user presses Ctrl+C while this runs
				if ignoreCtx {
					<-release
					return tools.Result{Content: "late"}, nil
				}
				<-c.Done()
				return tools.Result{Content: "partial"}, c.Err()
			}}
			var ran []string
			other := &agenttest.Tool{ToolName: "other", Fn: func(context.Context, json.RawMessage) (tools.Result, error) {
				ran = append(ran, "other")
				return tools.Result{Content: "x"}, nil
			}}
			p := agenttest.NewProvider(step{Text: "working", Calls: []llm.Block{call("a", "slow", `{}`), call("b", "other", `{}`), call("c", "other", `{}`)}})
			h := newHarness(t, p, []tools.Tool{slow, other}, nil)
			h.a.pipe.grace = 10 * time.Millisecond
			res := h.a.Run(ctx, "go")
			if res.StopReason != StopAborted || len(ran) != 0 {
				t.Fatalf("result = %+v, ran %v", res, ran)
			}
			rs := lastResults(h.a.History())
			if len(rs) != 3 || !strings.Contains(rs[0].Content, "Interrupted by user") || !strings.Contains(rs[1].Content, "Aborted") || !rs[2].IsError {
				t.Fatalf("results = %+v", rs)
			}
			h.checkInvariants()
		})
	}
}

func TestHookStopEndsTurn(t *testing.T) {
	hooks := &fakeHooks{post: func(HookPayload) HookOutcome { return HookOutcome{Stop: true, Reason: "ci.sh says stop"} }}
	p := agenttest.NewProvider(step{Calls: []llm.Block{call("a", "t", `{}`)}}, step{Text: "never"})
	h := newHarness(t, p, []tools.Tool{&agenttest.Tool{ToolName: "t"}}, func(c *Config) { c.Hooks = hooks })
	res := h.a.Run(context.Background(), "go")
	if res.StopReason != StopError || !strings.Contains(res.Err, "ci.sh says stop") || len(p.Requests()) != 1 {
		t.Fatalf("result = %+v", res)
	}
	h.checkInvariants()
}

func TestDeferredToolNeedsActivation(t *testing.T) {
	p := agenttest.NewProvider(step{Calls: []llm.Block{call("a", "later", `{}`)}}, step{Text: "ok"})
	h := newHarness(t, p, []tools.Tool{&deferredTool{agenttest.Tool{ToolName: "later"}}}, nil)
	h.a.Run(context.Background(), "go")
	if rs := lastResults(h.a.History()); !strings.Contains(rs[0].Content, "select:later") {
		t.Fatalf("result = %+v", rs)
	}
}

type deferredTool struct{ agenttest.Tool }

func (deferredTool) Deferred() bool { return true }

// TestNoGoroutineLeaks runs turns with parallel calls, early starts,
// retries and cancellations and checks every goroutine is gone afterwards.
func TestNoGoroutineLeaks(t *testing.T) {
	base := runtime.NumGoroutine()
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		slow := &agenttest.Tool{ToolName: "slow", RO: true, Fn: func(c context.Context, _ json.RawMessage) (tools.Result, error) {
			if i%2 == 0 {
				cancel()
			}
			select {
			case <-c.Done():
				return tools.Result{}, c.Err()
			case <-time.After(time.Millisecond):
				return tools.Result{Content: "ok"}, nil
			}
		}}
		p := agenttest.NewProvider(step{Retries: 1, Calls: []llm.Block{call("a", "slow", `{}`), call("b", "slow", `{"x":1}`), call("c", "slow", `{"x":2}`)}}, step{Text: "done"})
		h := newHarness(t, p, []tools.Tool{slow}, nil)
		h.a.Run(ctx, "go")
		cancel()
		h.checkInvariants()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left over (base %d):\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

// TestSlowHookDoesNotStallStream: the PreToolUse hook of a streamed read
// waits until the model has finished streaming; if hooks ran on the stream
// itself, the two would wait for each other.
func TestSlowHookDoesNotStallStream(t *testing.T) {
	streamDone := make(chan struct{})
	var stalled atomic.Bool
	hooks := &syncHooks{pre: func(p HookPayload) HookOutcome {
		if p.Tool == "read" {
			select {
			case <-streamDone:
			case <-time.After(10 * time.Second):
				stalled.Store(true)
			}
		}
		return HookOutcome{}
	}}
	tl := newTimeline()
	st := step{
		Calls: []llm.Block{call("r1", "read", `{"id":"r1"}`), call("r2", "read", `{"id":"r2"}`)},
		AfterToolDone: func(i int) {
			if i == 1 {
				close(streamDone)
			}
		},
	}
	p := agenttest.NewProvider(st, step{Text: "done"})
	h := newHarness(t, p, []tools.Tool{idTool("read", true, tl, nil)}, func(c *Config) { c.Hooks = hooks })
	res := h.a.Run(context.Background(), "go")
	if stalled.Load() || res.StopReason != StopCompleted || !tl.has("end:r1") || !tl.has("end:r2") {
		t.Fatalf("stalled=%v result=%+v log=%v", stalled.Load(), res, tl.log)
	}
	h.checkInvariants()
}

// syncHooks is a HookRunner safe for concurrent use.
type syncHooks struct {
	pre func(HookPayload) HookOutcome
}

func (s *syncHooks) PreToolUse(_ context.Context, p HookPayload) HookOutcome  { return s.pre(p) }
func (s *syncHooks) PostToolUse(_ context.Context, p HookPayload) HookOutcome { return HookOutcome{} }
