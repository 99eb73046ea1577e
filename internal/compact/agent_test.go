package compact_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// The long-session proof through the real loop: 1,000 round trips of
// internal/agent with this package as its ContextManager. Every request the
// provider receives fits the window, keeps every pair and still holds the
// first instruction; auto-compaction happens at turn boundaries.
func TestAgentLongSession(t *testing.T) {
	const window, maxOut, trips = 200000, 8000, 1000
	rng := rand.New(rand.NewPCG(3, 4))
	s := newSession(5, newClock()) // for its result buffers
	var steps []agenttest.Step
	var turnLens []int
	for n, id := 0, 0; n < trips; {
		l := min(1+rng.IntN(80), trips-n)
		for range l - 1 {
			var calls []llm.Block
			for range 1 + rng.IntN(2) {
				id++
				switch rng.IntN(4) {
				case 0, 1:
					calls = append(calls, agenttest.Call(fmt.Sprintf("toolu_%05d", id), "read_file", fmt.Sprintf(`{"file_path":"internal/store/file%02d.go"}`, rng.IntN(30))))
				case 2:
					calls = append(calls, agenttest.Call(fmt.Sprintf("toolu_%05d", id), "grep_search", fmt.Sprintf(`{"pattern":"handler%d"}`, rng.IntN(100))))
				default:
					calls = append(calls, agenttest.Call(fmt.Sprintf("toolu_%05d", id), "run_shell", `{"command":"go test ./..."}`))
				}
			}
			steps = append(steps, agenttest.Step{Text: "Next step.", Calls: calls})
		}
		steps = append(steps, agenttest.Step{Text: "That part is done."})
		turnLens = append(turnLens, l)
		n += l
	}
	p := agenttest.NewProvider(steps...)
	p.Side = map[llm.Purpose]string{llm.PurposeCompact: summaryText}
	var mu sync.Mutex
	var failure string
	mains, summaries := 0, 0
	p.OnRequest = func(req *llm.Request) {
		mu.Lock()
		defer mu.Unlock()
		fail := func(f string, a ...any) {
			if failure == "" {
				failure = fmt.Sprintf(f, a...)
			}
		}
		if req.Purpose == llm.PurposeCompact {
			summaries++
			if n := compact.EstimateRequest(req) + req.MaxTokens; n > window {
				fail("summary request needs %d tokens", n)
			}
			return
		}
		mains++
		if n := compact.EstimateRequest(req) + req.MaxTokens; n > window {
			fail("request %d: %d tokens with the output limit, window %d", mains, n, window)
		}
		if err := agenttest.CheckPairing(req.Messages); err != nil {
			fail("request %d: %v", mains, err)
		}
		if !containsText(req.Messages, longFirstPrompt) {
			fail("request %d: first instruction not in the history", mains)
		}
	}
	var rmu sync.Mutex
	result := func(context.Context, json.RawMessage) (tools.Result, error) {
		rmu.Lock()
		defer rmu.Unlock()
		return tools.Result{Content: s.result(llm.Block{})}, nil
	}
	reg := tools.NewRegistry()
	for _, name := range []string{"read_file", "grep_search", "run_shell"} {
		reg.Register(&agenttest.Tool{ToolName: name, RO: name != "run_shell", Fn: result})
	}
	ev := &events{}
	env := &tools.Env{Root: t.TempDir(), SessionID: "long-1"}
	clk := newClock()
	m := compact.New(compact.Options{Provider: p, Auto: true, Env: env, Now: clk.now, Emit: ev.emit,
		Instructions: func() string { return "Run go vet before finishing." }})
	a, err := agent.New(agent.Config{Provider: p, Model: "mock", Tools: reg, Env: env, Context: m,
		System: []llm.SystemBlock{{Text: "You are hew.", Cache: true}}, MaxTurns: 100, MaxOutputTokens: maxOut,
		SessionID: "long-1", Emit: func(agent.Event) { clk.advance(2 * time.Second) }})
	if err != nil {
		t.Fatal(err)
	}
	prompt := longFirstPrompt
	for i := range turnLens {
		res := a.Run(context.Background(), prompt)
		if res.StopReason != agent.StopCompleted {
			t.Fatalf("turn %d: %s %s", i, res.StopReason, res.Err)
		}
		prompt = fmt.Sprintf("Good. Now part %d.", i+2)
		if i%5 == 4 {
			clk.advance(7 * time.Minute)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if failure != "" {
		t.Fatal(failure)
	}
	if mains != trips {
		t.Fatalf("main requests = %d, want %d", mains, trips)
	}
	if err := llm.ValidateHistory(a.History()); err != nil {
		t.Fatal(err)
	}
	tiers := map[int]int{}
	for _, c := range ev.compacted() {
		tiers[c.Tier]++
	}
	if summaries == 0 || tiers[4] == 0 {
		t.Fatalf("no auto-compaction in %d round trips (tiers %v)", trips, tiers)
	}
	if !strings.Contains(allText(a.History()), "Run go vet before finishing.") {
		t.Fatal("project instructions not put back after compaction")
	}
	t.Logf("turns %d, summaries %d, tier actions %v, cache hit rate %.2f", len(turnLens), summaries, tiers, m.Stats().HitRate)
}
