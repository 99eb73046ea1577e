package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

func TestTextOnlyTurn(t *testing.T) {
	p := agenttest.NewProvider(step{Text: "hello there", Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}})
	h := newHarness(t, p, nil, nil)
	res := h.a.Run(context.Background(), "hi")
	if res.StopReason != StopCompleted || res.Text != "hello there" || res.RoundTrips != 1 || res.SessionID != "s1" {
		t.Fatalf("result = %+v", res)
	}
	if res.Usage.InputTokens != 1000 || res.CostUSD != 0 {
		t.Fatalf("usage/cost = %+v %v", res.Usage, res.CostUSD)
	}
	want := []string{"turn_started", "request_started", "text", "text", "usage", "context", "turn_ended"}
	if got := h.ev.names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	if n := len(h.rec.messages); n != 2 {
		t.Fatalf("recorded %d messages, want 2", n)
	}
	h.checkInvariants()
}

func TestCostUnknownAndKnown(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  float64
	}{
		{"some-local-model", -1},
		{"claude-sonnet-4-5", 3.0*1e6/1e6 + 15.0*1e5/1e6},
	} {
		p := agenttest.NewProvider(step{Text: "x", Usage: llm.Usage{InputTokens: 1e6, OutputTokens: 1e5}})
		h := newHarness(t, p, nil, func(c *Config) { c.Model = tc.model })
		res := h.a.Run(context.Background(), "hi")
		if fmt.Sprintf("%.4f", res.CostUSD) != fmt.Sprintf("%.4f", tc.want) {
			t.Errorf("%s: cost = %v, want %v", tc.model, res.CostUSD, tc.want)
		}
		if _, c := h.a.Usage(); fmt.Sprintf("%.4f", c) != fmt.Sprintf("%.4f", tc.want) {
			t.Errorf("%s: Usage cost = %v", tc.model, c)
		}
	}
}

func TestToolRoundTrip(t *testing.T) {
	var got string
	echo := &agenttest.Tool{ToolName: "echo", RO: true, InputSchema: `{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}`,
		Fn: func(_ context.Context, in json.RawMessage) (tools.Result, error) {
			var v struct{ S string }
			json.Unmarshal(in, &v)
			got = v.S
			return tools.Result{Content: "echo:" + v.S}, nil
		}}
	p := agenttest.NewProvider(
		step{Text: "let me", Calls: []llm.Block{call("c1", "echo", `{"s":"abc"}`)}},
		step{Text: "done"},
	)
	h := newHarness(t, p, []tools.Tool{echo}, nil)
	res := h.a.Run(context.Background(), "go")
	if res.StopReason != StopCompleted || res.Text != "done" || res.ToolCalls != 1 || res.RoundTrips != 2 || got != "abc" {
		t.Fatalf("result = %+v got=%q", res, got)
	}
	reqs := p.Requests()
	if len(reqs) != 2 || len(reqs[1].Messages) != 3 || reqs[1].Messages[2].Content[0].Content != "echo:abc" {
		t.Fatalf("second request = %+v", reqs[1].Messages)
	}
	if reqs[0].Tools[0].Name != "echo" || reqs[0].Purpose != llm.PurposeMain {
		t.Fatalf("tools = %+v", reqs[0].Tools)
	}
	started := eventsOf[ToolStarted](h.ev)
	finished := eventsOf[ToolFinished](h.ev)
	if len(started) != 1 || started[0].Summary != "echo(abc)" || len(finished) != 1 || finished[0].Receipt == nil || finished[0].Receipt.Decision != "allow" {
		t.Fatalf("tool events = %+v %+v", started, finished)
	}
	h.checkInvariants()
}

func TestMaxTurns(t *testing.T) {
	var steps []step
	for i := 0; i < 10; i++ {
		steps = append(steps, step{Text: fmt.Sprintf("step %d", i), Calls: []llm.Block{call(fmt.Sprintf("c%d", i), "t", fmt.Sprintf(`{"n":%d}`, i))}})
	}
	p := agenttest.NewProvider(steps...)
	h := newHarness(t, p, []tools.Tool{&agenttest.Tool{ToolName: "t"}}, func(c *Config) { c.MaxTurns = 3 })
	res := h.a.Run(context.Background(), "loop")
	if res.StopReason != StopMaxTurns || res.RoundTrips != 3 || len(p.Requests()) != 3 || res.Text != "step 2" {
		t.Fatalf("result = %+v, requests %d", res, len(p.Requests()))
	}
	h.checkInvariants()
}

func TestBudgetStops(t *testing.T) {
	mk := func() *agenttest.Provider {
		var steps []step
		for i := 0; i < 10; i++ {
			steps = append(steps, step{Calls: []llm.Block{call(fmt.Sprintf("c%d", i), "t", fmt.Sprintf(`{"n":%d}`, i))},
				Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}})
		}
		return agenttest.NewProvider(steps...)
	}
	tl := []tools.Tool{&agenttest.Tool{ToolName: "t"}}
	p := mk()
	h := newHarness(t, p, tl, func(c *Config) { c.MaxBudgetTokens = 2500 })
	res := h.a.Run(context.Background(), "go")
	if res.StopReason != StopMaxBudget || res.RoundTrips != 3 || res.Usage.Total() != 3300 {
		t.Fatalf("token budget: %+v", res)
	}
	h.checkInvariants()

	p = mk()
	// claude-sonnet-4: 1000 in + 100 out = $0.0045 per request.
	h = newHarness(t, p, tl, func(c *Config) { c.Model = "claude-sonnet-4"; c.MaxCostUSD = 0.01 })
	res = h.a.Run(context.Background(), "go")
	if res.StopReason != StopMaxBudget || res.RoundTrips != 3 {
		t.Fatalf("cost budget: %+v", res)
	}
	h.checkInvariants()
}

func TestAPIErrorStopsWithError(t *testing.T) {
	p := agenttest.NewProvider(step{Err: &llm.APIError{Status: 401, Message: "bad key"}})
	h := newHarness(t, p, nil, nil)
	res := h.a.Run(context.Background(), "hi")
	if res.StopReason != StopError || !strings.Contains(res.Err, "bad key") {
		t.Fatalf("result = %+v", res)
	}
	h.checkInvariants()
}

// fakeContext is a ContextManager that records calls and compacts to the
// last user message on Recover.
type fakeContext struct {
	atStart, before, after, recovers int
}

func (f *fakeContext) AtTurnStart(_ context.Context, req *llm.Request) []llm.Message {
	f.atStart++
	return req.Messages
}
func (f *fakeContext) BeforeRequest(req *llm.Request) []llm.Message { f.before++; return req.Messages }
func (f *fakeContext) AfterResponse(*llm.Request, *llm.Response)    { f.after++ }
func (f *fakeContext) Recover(_ context.Context, req *llm.Request, _ error) ([]llm.Message, bool) {
	f.recovers++
	// Keep everything from the last plain user message (the current prompt).
	keep := 0
	for i, m := range req.Messages {
		if m.Role == llm.RoleUser && len(m.Content) > 0 && m.Content[0].Type == llm.BlockText {
			keep = i
		}
	}
	out := []llm.Message{llm.UserText("summary"), {Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "ok"}}}}
	return append(out, req.Messages[keep:]...), true
}
func (f *fakeContext) Compact(_ context.Context, req *llm.Request, focus string) ([]llm.Message, error) {
	return []llm.Message{llm.UserText("summary of " + focus)}, nil
}

func TestPromptTooLongRecoversOnce(t *testing.T) {
	tooLong := &llm.APIError{Status: 400, Message: "prompt is too long: 250000 tokens > 200000 maximum"}
	for _, tc := range []struct {
		name   string
		steps  []step
		ctxMgr bool
		stop   StopReason
	}{
		{"recovers", []step{{Err: tooLong}, {Text: "fine"}}, true, StopCompleted},
		{"only once", []step{{Err: tooLong}, {Err: tooLong}}, true, StopError},
		{"no manager", []step{{Err: tooLong}}, false, StopError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := &fakeContext{}
			p := agenttest.NewProvider(tc.steps...)
			h := newHarness(t, p, nil, func(c *Config) {
				if tc.ctxMgr {
					c.Context = fc
				}
			})
			h.a.SetHistory([]llm.Message{llm.UserText("old"), {Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "old answer"}}}})
			res := h.a.Run(context.Background(), "new")
			if res.StopReason != tc.stop {
				t.Fatalf("stop = %v (%s)", res.StopReason, res.Err)
			}
			if tc.ctxMgr && (fc.atStart != 1 || fc.recovers != 1) {
				t.Fatalf("context calls = %+v", fc)
			}
			if tc.stop == StopCompleted {
				reqs := p.Requests()
				if got := reqs[1].Messages[0].Text(); got != "summary" {
					t.Fatalf("retry did not use the compacted history: %q", got)
				}
				if len(h.rec.records["reset"]) != 1 {
					t.Fatalf("reset records = %d", len(h.rec.records["reset"]))
				}
			}
			h.checkInvariants()
		})
	}
}

func TestCompactAndClear(t *testing.T) {
	h := newHarness(t, agenttest.NewProvider(step{Text: "a"}), nil, func(c *Config) { c.Context = &fakeContext{} })
	h.a.Run(context.Background(), "q")
	if err := h.a.Compact(context.Background(), "tests"); err != nil {
		t.Fatal(err)
	}
	if got := h.a.History(); len(got) != 1 || got[0].Text() != "summary of tests" {
		t.Fatalf("history after compact = %+v", got)
	}
	h.a.Clear()
	if len(h.a.History()) != 0 || len(h.rec.records["reset"]) != 2 {
		t.Fatalf("clear: %d messages, %d resets", len(h.a.History()), len(h.rec.records["reset"]))
	}
	h2 := newHarness(t, agenttest.NewProvider(), nil, nil)
	if err := h2.a.Compact(context.Background(), ""); err == nil {
		t.Fatal("Compact without a context manager should fail")
	}
}

func TestMaxTokensEscalatesThenContinues(t *testing.T) {
	cut := llm.StopMaxTokens
	p := agenttest.NewProvider(
		step{Text: "Part", Stop: cut},       // first cut: retried with a higher limit
		step{Text: "Part one. ", Stop: cut}, // still cut: continued
		step{Text: "Part two. ", Stop: cut}, // continued
		step{Text: "Part three.", Stop: ""}, // done
	)
	h := newHarness(t, p, nil, nil)
	res := h.a.Run(context.Background(), "write a lot")
	if res.StopReason != StopCompleted || res.Text != "Part one. Part two. Part three." {
		t.Fatalf("result = %+v", res)
	}
	// Issue 12.10: the escalation really raises the limit (16K, then the
	// mock model's 32K), and the void text is announced like a retry.
	reqs := p.Requests()
	if reqs[0].MaxTokens != 16000 || reqs[1].MaxTokens != llm.LookupModel("mock").MaxOutput || reqs[2].MaxTokens != reqs[1].MaxTokens {
		t.Fatalf("max tokens = %d %d %d", reqs[0].MaxTokens, reqs[1].MaxTokens, reqs[2].MaxTokens)
	}
	if rs := eventsOf[Retrying](h.ev); len(rs) != 1 || !strings.Contains(rs[0].Reason, "output limit of 16000") {
		t.Fatalf("retry events = %+v", rs)
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if !strings.Contains(last.Text(), "Continue exactly where you stopped") {
		t.Fatalf("continuation message = %q", last.Text())
	}
	h.checkInvariants()
}

// A request already at the ceiling is never resent identically: a cut
// answer goes straight to continuation (issue 12.10).
func TestMaxTokensAtCeilingContinuesAtOnce(t *testing.T) {
	cut := llm.StopMaxTokens
	for _, tc := range []struct {
		name string
		opt  func(*Config)
	}{
		{"explicit limit", func(c *Config) { c.MaxOutputTokens = 4000 }},
		{"unknown model", func(c *Config) { c.Model = "some-local-model" }},
		{"little headroom (gpt-4o: 16,384)", func(c *Config) { c.Model = "gpt-4o" }},
	} {
		p := agenttest.NewProvider(step{Text: "Part one. ", Stop: cut}, step{Text: "Part two."})
		h := newHarness(t, p, nil, tc.opt)
		res := h.a.Run(context.Background(), "write a lot")
		reqs := p.Requests()
		if res.Text != "Part one. Part two." || len(reqs) != 2 || reqs[0].MaxTokens != reqs[1].MaxTokens {
			t.Fatalf("%s: result %+v after %d requests", tc.name, res, len(reqs))
		}
		if !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Text(), "Continue exactly where you stopped") {
			t.Fatalf("%s: second request is not a continuation", tc.name)
		}
		if len(eventsOf[Retrying](h.ev)) != 0 {
			t.Fatalf("%s: a continuation announced discarded text", tc.name)
		}
	}
}

func TestMaxTokensGivesUpAfterThreeContinuations(t *testing.T) {
	cut := llm.StopMaxTokens
	var steps []step
	for i := 0; i < 6; i++ {
		steps = append(steps, step{Text: fmt.Sprintf("p%d ", i), Stop: cut})
	}
	p := agenttest.NewProvider(steps...)
	h := newHarness(t, p, nil, nil)
	res := h.a.Run(context.Background(), "go")
	// 1 original + 1 escalated retry + 3 continuations.
	if res.StopReason != StopError || len(p.Requests()) != 5 || !strings.Contains(res.Err, "cut off") {
		t.Fatalf("result = %+v, %d requests", res, len(p.Requests()))
	}
	h.checkInvariants()
}

func TestTruncatedToolCallNeverRuns(t *testing.T) {
	var runs atomic.Int32
	w := &agenttest.Tool{ToolName: "write", Fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		runs.Add(1)
		return tools.Result{Content: "written"}, nil
	}}
	cut := llm.StopMaxTokens
	truncated := llm.Block{Type: llm.BlockToolUse, ID: "c2", Name: "write", Input: json.RawMessage(`{"content":"abc`)}
	p := agenttest.NewProvider(
		step{Text: "x", Stop: cut, Calls: []llm.Block{call("c1", "write", `{"a":1}`), truncated}, NoToolDone: true},
		step{Text: "x", Stop: cut, Calls: []llm.Block{call("c1", "write", `{"a":1}`), truncated}, NoToolDone: true},
		step{Text: "ok"},
	)
	h := newHarness(t, p, []tools.Tool{w}, nil)
	res := h.a.Run(context.Background(), "go")
	if res.StopReason != StopCompleted || runs.Load() != 1 || res.ToolCalls != 1 {
		t.Fatalf("result = %+v, runs = %d", res, runs.Load())
	}
	reqs := p.Requests()
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if len(last.Content) != 2 || last.Content[0].ID != "c1" || !strings.Contains(last.Content[1].Text, "was NOT run") {
		t.Fatalf("model not told about the truncated call: %+v", last)
	}
	h.checkInvariants()
}

func TestRetryEventDiscardsAndNotifies(t *testing.T) {
	var runs atomic.Int32
	r := &agenttest.Tool{ToolName: "read", RO: true, Fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		runs.Add(1)
		return tools.Result{Content: "data"}, nil
	}}
	p := agenttest.NewProvider(step{Text: "t", Retries: 2, Calls: []llm.Block{call("c1", "read", `{}`)}}, step{Text: "ok"})
	h := newHarness(t, p, []tools.Tool{r}, nil)
	res := h.a.Run(context.Background(), "go")
	if res.StopReason != StopCompleted || res.ToolCalls != 1 {
		t.Fatalf("result = %+v", res)
	}
	var retries []string
	for _, n := range eventsOf[Notice](h.ev) {
		if strings.HasPrefix(n.Text, "retrying (attempt") {
			retries = append(retries, n.Text)
		}
	}
	if len(retries) != 2 {
		t.Fatalf("retry notices = %v", retries)
	}
	// Discarded early starts may have run, but exactly one result reached the model.
	if got := lastResults(h.a.History()); len(got) != 1 || got[0].Content != "data" {
		t.Fatalf("results = %+v", got)
	}
	h.checkInvariants()
}

func TestRunawayGuard(t *testing.T) {
	for _, tc := range []struct {
		name     string
		changing bool
		stop     StopReason
	}{
		{"same result stops", false, StopError},
		{"changing results continue", true, StopCompleted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			tl := &agenttest.Tool{ToolName: "status", RO: true, Fn: func(context.Context, json.RawMessage) (tools.Result, error) {
				i := n.Add(1)
				if tc.changing {
					return tools.Result{Content: fmt.Sprintf("run %d", i)}, nil
				}
				return tools.Result{Content: "same"}, nil
			}}
			var steps []step
			for i := 0; i < 5; i++ {
				steps = append(steps, step{Calls: []llm.Block{call(fmt.Sprintf("c%d", i), "status", `{"x": 1, "y": 2}`)}})
			}
			steps = append(steps, step{Text: "done"})
			h := newHarness(t, agenttest.NewProvider(steps...), []tools.Tool{tl}, nil)
			res := h.a.Run(context.Background(), "go")
			if res.StopReason != tc.stop {
				t.Fatalf("stop = %v (%s)", res.StopReason, res.Err)
			}
			if tc.stop == StopError && (res.ToolCalls != 3 || !strings.Contains(res.Err, "3 times in a row")) {
				t.Fatalf("runaway result = %+v", res)
			}
			h.checkInvariants()
		})
	}
}

func TestCancelDuringStream(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := agenttest.NewProvider(step{Text: "x", Before: func(c context.Context) { cancel(); <-c.Done() }})
	h := newHarness(t, p, nil, nil)
	res := h.a.Run(ctx, "hi")
	if res.StopReason != StopAborted {
		t.Fatalf("result = %+v", res)
	}
	if hist := h.a.History(); len(hist) != 1 || hist[0].Role != llm.RoleUser {
		t.Fatalf("history = %+v", hist)
	}
	h.checkInvariants()
}

func TestEmptyPromptLeavesHistoryAlone(t *testing.T) {
	h := newHarness(t, agenttest.NewProvider(), nil, nil)
	res := h.a.Run(context.Background(), "  \n")
	if res.StopReason != StopError || len(h.a.History()) != 0 || len(h.p.Requests()) != 0 {
		t.Fatalf("result = %+v", res)
	}
}

func TestSetModeAndSetModel(t *testing.T) {
	var modes []permission.Mode
	pm := &perms{fn: func(r permission.Request) permission.Verdict {
		modes = append(modes, r.Mode)
		return permission.Verdict{Decision: permission.Allow}
	}}
	first := agenttest.NewProvider(step{Calls: []llm.Block{call("a", "t", `{}`)}}, step{Text: "one"})
	h := newHarness(t, first, []tools.Tool{&agenttest.Tool{ToolName: "t"}}, func(c *Config) { c.Permissions = pm })
	h.a.Run(context.Background(), "x")
	h.a.SetMode(permission.ModePlan)
	second := agenttest.NewProvider(step{Calls: []llm.Block{call("b", "t", `{}`)}}, step{Text: "two"})
	h.a.SetModel(second, "claude-sonnet-4")
	res := h.a.Run(context.Background(), "y")
	if res.Text != "two" || h.a.Mode() != permission.ModePlan || h.a.Model() != "claude-sonnet-4" {
		t.Fatalf("result = %+v", res)
	}
	if len(modes) != 2 || modes[0] != permission.ModeDefault || modes[1] != permission.ModePlan {
		t.Fatalf("modes seen by the permission engine = %v", modes)
	}
	if reqs := second.Requests(); len(reqs) != 2 || reqs[0].Model != "claude-sonnet-4" || len(reqs[0].Messages) != 5 {
		t.Fatalf("second provider requests = %d", len(reqs))
	}
	h.checkInvariants()
}

// A sub-agent's usage counts toward the parent's budget: after AddUsage the
// next turn stops on max_budget before sending anything.
func TestAddUsageCountsTowardBudget(t *testing.T) {
	p := agenttest.NewProvider(step{Text: "never"})
	h := newHarness(t, p, nil, nil)
	h.a.cfg.MaxBudgetTokens = 500
	h.a.AddUsage("mock", llm.Usage{InputTokens: 400, OutputTokens: 200})
	if u, _ := h.a.Usage(); u.Total() != 600 {
		t.Fatalf("usage %+v", u)
	}
	res := h.a.Run(context.Background(), "hi")
	if res.StopReason != StopMaxBudget || len(p.Requests()) != 0 {
		t.Fatalf("result %+v, %d requests", res, len(p.Requests()))
	}
}

func TestReceiptSummary(t *testing.T) {
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	r := &Receipt{Decision: "allow", DecidedBy: "rule:allow run_shell(go test*)", Start: start, End: start.Add(1500 * time.Millisecond),
		ResultBytes: 40000, StoredAt: "/h/tool-results/t1.txt"}
	want := "allow by rule:allow run_shell(go test*) · 1.5s · 40000 bytes · full result: /h/tool-results/t1.txt"
	if got := r.Summary(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := (&Receipt{ResultBytes: 3}).Summary(); got != "3 bytes" {
		t.Fatalf("bare receipt: %q", got)
	}
}

// A message larger than the context window is refused before anything is
// sent, with its size (issue 12.15).
func TestMessageLargerThanWindowRefused(t *testing.T) {
	p := agenttest.NewProvider(step{Text: "never"})
	h := newHarness(t, p, nil, func(c *Config) { c.ContextWindow = 200000 })
	big := strings.Repeat("log line with some words in it\n", 100000) // 3.1 MB
	res := h.a.Run(context.Background(), big)
	if res.StopReason != StopError || len(p.Requests()) != 0 {
		t.Fatalf("result %+v after %d requests", res, len(p.Requests()))
	}
	for _, want := range []string{"3.0 MB", "about 775000 tokens", "200000-token context window", "nothing was sent", "file"} {
		if !strings.Contains(res.Err, want) {
			t.Errorf("message %q lacks %q", res.Err, want)
		}
	}
	if len(h.a.History()) != 0 {
		t.Errorf("the refused message entered the history")
	}
	// A large message that fits still goes out.
	res = h.a.Run(context.Background(), strings.Repeat("x", 400000))
	if res.StopReason != StopCompleted || len(p.Requests()) != 1 {
		t.Fatalf("fitting message: %+v", res)
	}
}

// A server that numbers calls per answer (call_0 every time) gets unique
// ids in the history — so compaction's and resume's checks pass — while
// the wire keeps the server's own ids on calls and their results (issue 12.8).
func TestRepeatedCallIDsMadeUnique(t *testing.T) {
	r := &agenttest.Tool{ToolName: "r", RO: true}
	p := agenttest.NewProvider(
		step{Calls: []llm.Block{call("call_0", "r", `{}`), call("call_1", "r", `{}`)}},
		step{Calls: []llm.Block{call("call_0", "r", `{}`)}},
		step{Text: "done"},
	)
	h := newHarness(t, p, []tools.Tool{r}, nil)
	if res := h.a.Run(context.Background(), "go"); res.StopReason != StopCompleted {
		t.Fatalf("result %+v", res)
	}
	h.checkInvariants()
	hist := h.a.History()
	second := hist[3].ToolUses()
	if len(second) != 1 || second[0].ID == "call_0" || second[0].WireID != "call_0" {
		t.Fatalf("second answer's call = %+v", second)
	}
	res := hist[4].Content[0]
	if res.ID != second[0].ID || res.WireCallID() != "call_0" {
		t.Fatalf("its result = %+v", res)
	}
	if first := hist[1].ToolUses(); first[0].ID != "call_0" || first[0].WireID != "" {
		t.Fatalf("a first use keeps the provider's id: %+v", first[0])
	}
}
