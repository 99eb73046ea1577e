package compact_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/anthropic"
	"github.com/hew-dev/hew/internal/llm/mockserver"
	"github.com/hew-dev/hew/internal/llm/scenario"
	"github.com/hew-dev/hew/internal/tools"
)

// wire starts the mock server on sc and an agent talking to it over the
// Anthropic protocol, with a Manager as its ContextManager.
func wire(t *testing.T, sc *scenario.Scenario, o compact.Options, result func(json.RawMessage) string) (*agent.Agent, *mockserver.Server, *compact.Manager, *clock) {
	t.Helper()
	srv, err := mockserver.Start(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	p := anthropic.New(anthropic.Config{APIKey: "test", BaseURL: srv.URL()})
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "read_file", RO: true,
		InputSchema: `{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`,
		Fn: func(_ context.Context, in json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: result(in)}, nil
		}})
	env := &tools.Env{Root: t.TempDir(), SessionID: "s-1"}
	clk := newClock()
	o.Provider, o.Env, o.Now = p, env, clk.now
	m := compact.New(o)
	a, err := agent.New(agent.Config{Provider: p, Model: "claude-sonnet-4-5", Tools: reg, Env: env, Context: m, SessionID: "s-1",
		System: []llm.SystemBlock{{Text: "You are hew, a coding agent.", Cache: true}, {Text: "Working directory: " + env.Root}},
		Emit:   func(agent.Event) { clk.advance(time.Second) }})
	if err != nil {
		t.Fatal(err)
	}
	return a, srv, m, clk
}

// stripCache removes cache_control markers: the breakpoint moves to the last
// message on every request, and only the content has to stay the same.
func stripCache(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "cache_control")
		for k, e := range x {
			x[k] = stripCache(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stripCache(e)
		}
	}
	return v
}

// Twenty idle-ish turns through agent, Anthropic adapter and mock server:
// the system and tools bytes on the wire never change and every request's
// messages extend the previous request's.
func TestWireTwentyTurnsStablePrefix(t *testing.T) {
	sc := &scenario.Scenario{}
	for i := range 20 {
		sc.Turns = append(sc.Turns,
			scenario.Turn{Text: "Reading.", ToolCalls: []scenario.ToolCall{{ID: fmt.Sprintf("toolu_%02d", i), Name: "read_file", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"pkg/f%d.go"}`, i%6))}}},
			scenario.Turn{Text: fmt.Sprintf("File %d looks fine.", i)})
	}
	ev := &events{}
	a, srv, m, clk := wire(t, sc, compact.Options{Auto: true, Emit: ev.emit}, func(json.RawMessage) string { return "package pkg\n" + ascii(6000) })
	for i := range 20 {
		if res := a.Run(context.Background(), fmt.Sprintf("check file %d", i)); res.StopReason != agent.StopCompleted {
			t.Fatalf("turn %d: %s %s", i, res.StopReason, res.Err)
		}
		clk.advance(time.Duration(20+7*i) * time.Second)
	}
	reqs := srv.Requests()
	if len(reqs) != 40 {
		t.Fatalf("requests = %d", len(reqs))
	}
	var prevSys, prevTools string
	var prevMsgs []string
	for i, r := range reqs {
		var body struct {
			System   json.RawMessage   `json:"system"`
			Tools    json.RawMessage   `json:"tools"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if len(r.Violations) > 0 {
			t.Fatalf("request %d: %v", i, r.Violations)
		}
		if i > 0 && (string(body.System) != prevSys || string(body.Tools) != prevTools) {
			t.Fatalf("request %d: system or tools bytes changed", i)
		}
		msgs := make([]string, len(body.Messages))
		for j, raw := range body.Messages {
			var v any
			_ = json.Unmarshal(raw, &v)
			b, _ := json.Marshal(stripCache(v))
			msgs[j] = string(b)
		}
		if len(msgs) <= len(prevMsgs) {
			t.Fatalf("request %d has %d messages, the previous had %d", i, len(msgs), len(prevMsgs))
		}
		for j := range prevMsgs {
			if msgs[j] != prevMsgs[j] {
				t.Fatalf("request %d changed message %d of the previous request", i, j)
			}
		}
		prevSys, prevTools, prevMsgs = string(body.System), string(body.Tools), msgs
	}
	if ms := ev.misses(); len(ms) != 0 {
		t.Fatalf("cache misses reported: %+v", ms)
	}
	if s := m.Stats(); s.Requests != 40 {
		t.Fatalf("stats = %+v", s)
	}
}

// A 400 "prompt is too long" from the server is answered with a reactive
// compaction (a tagged summary request) and one retry that succeeds.
func TestWirePromptTooLongRecovers(t *testing.T) {
	sc := &scenario.Scenario{Side: map[string]string{"compact": summaryText}}
	for i := range 6 {
		sc.Turns = append(sc.Turns,
			scenario.Turn{Text: "Reading.", ToolCalls: []scenario.ToolCall{{ID: fmt.Sprintf("toolu_%02d", i), Name: "read_file", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"pkg/f%d.go"}`, i))}}},
			scenario.Turn{Text: "Read."})
	}
	sc.Turns = append(sc.Turns,
		scenario.Turn{Error: &scenario.Fault{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 230000 tokens > 200000 maximum", Times: 1}},
		scenario.Turn{Text: "Continuing after compaction."})
	ev := &events{}
	a, srv, _, _ := wire(t, sc, compact.Options{Emit: ev.emit}, func(json.RawMessage) string { return ascii(20000) })
	for i := range 6 {
		if res := a.Run(context.Background(), fmt.Sprintf("read file %d", i)); res.StopReason != agent.StopCompleted {
			t.Fatalf("turn %d: %s %s", i, res.StopReason, res.Err)
		}
	}
	res := a.Run(context.Background(), "and now the summary of all of it")
	if res.StopReason != agent.StopCompleted || res.Text != "Continuing after compaction." {
		t.Fatalf("turn after the 400: %s %q %s", res.StopReason, res.Text, res.Err)
	}
	var summary, failed, retried *mockserver.Request
	reqs := srv.Requests()
	for i := range reqs {
		r := &reqs[i]
		switch {
		case r.Purpose == llm.PurposeCompact:
			summary = r
		case r.Status == 400:
			failed = r
		case failed != nil && retried == nil && r.Purpose == llm.PurposeMain:
			retried = r
		}
	}
	if summary == nil || failed == nil || retried == nil {
		for _, r := range reqs {
			t.Logf("%s %d %d bytes", r.Purpose, r.Status, len(r.Body))
		}
		t.Fatalf("want a failed request, a summary request and a retry; got summary %v failed %v retry %v", summary != nil, failed != nil, retried != nil)
	}
	if len(retried.Body) >= len(failed.Body)/2 {
		t.Fatalf("retry is %d bytes, the failed request %d", len(retried.Body), len(failed.Body))
	}
	if !strings.Contains(string(retried.Body), "read file 0") || !strings.Contains(string(retried.Body), "Verified facts") {
		t.Fatal("retry lacks the first request or the summary")
	}
	if cs := ev.compacted(); len(cs) != 1 || cs[0].Tier != 4 {
		t.Fatalf("compacted events = %+v", cs)
	}
	if err := llm.ValidateHistory(a.History()); err != nil {
		t.Fatal(err)
	}
}
