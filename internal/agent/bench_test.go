package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/scenario"
	"github.com/hew-dev/hew/internal/tools"
)

// loopProvider answers every other request with calls to a no-op tool and
// the rest with text, forever, at almost no cost of its own.
type loopProvider struct {
	n     int
	calls int
	msg   []llm.Message
}

func (p *loopProvider) Name() string { return "bench" }

func (p *loopProvider) Stream(_ context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	p.n++
	if p.n%2 == 1 {
		m := p.msg[p.n/2%len(p.msg)]
		for i := range m.Content {
			if m.Content[i].Type == llm.BlockToolUse {
				onEvent(llm.Event{Type: llm.EvToolDone, Block: &m.Content[i]})
			}
		}
		return &llm.Response{Message: m, StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}}, nil
	}
	onEvent(llm.Event{Type: llm.EvTextDelta, Text: "done"})
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "done"}}},
		StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}}, nil
}

func newLoopProvider(calls int) *loopProvider {
	p := &loopProvider{calls: calls}
	// Distinct ids per answer so the history stays valid across iterations.
	for k := 0; k < 64; k++ {
		m := llm.Message{Role: llm.RoleAssistant}
		for i := 0; i < calls; i++ {
			m.Content = append(m.Content, llm.Block{Type: llm.BlockToolUse, ID: fmt.Sprintf("t%d_%d", k, i), Name: "noop",
				Input: json.RawMessage(`{"file_path":"a.go"}`)})
		}
		p.msg = append(p.msg, m)
	}
	return p
}

// benchRoundTrips measures the harness cost of a turn of two round trips
// (one answer with tool calls, one final answer), reported per round trip.
func benchRoundTrips(b *testing.B, calls int) {
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "noop", RO: true})
	a, err := New(Config{Provider: newLoopProvider(calls), Model: "mock", Tools: reg, Emit: func(Event) {},
		Env: &tools.Env{Root: b.TempDir(), StateDir: b.TempDir()}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := a.Run(ctx, "go")
		if res.StopReason != StopCompleted {
			b.Fatalf("stop = %s (%s)", res.StopReason, res.Err)
		}
		a.Clear()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2/1000, "µs/roundtrip")
}

func BenchmarkRoundTrip1Call(b *testing.B)   { benchRoundTrips(b, 1) }
func BenchmarkRoundTrip10Calls(b *testing.B) { benchRoundTrips(b, 10) }

// BenchmarkRoundTripMockProvider is a realistic turn: the built-in mock
// model streams a read_file call, the real tool reads a small file, the
// model answers. Reported per round trip (two per turn).
func BenchmarkRoundTripMockProvider(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	sc, err := scenario.Parse([]byte(`{"turns": [
		{"text": "Reading.", "tool_calls": [{"name": "read_file", "input": {"file_path": "a.txt"}}]},
		{"text": "It says hello world."}]}`))
	if err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	a, err := New(Config{Provider: mock.New(sc), Model: "mock", Tools: reg, Emit: func(Event) {},
		Env: &tools.Env{Root: root, StateDir: b.TempDir()}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.SetModel(mock.New(sc), "mock")
		if res := a.Run(ctx, "read a.txt"); res.StopReason != StopCompleted || res.ToolCalls != 1 {
			b.Fatalf("result = %+v", res)
		}
		a.Clear()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2/1000, "µs/roundtrip")
}
