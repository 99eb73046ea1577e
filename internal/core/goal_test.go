package core

import (
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
)

func TestParseVerdict(t *testing.T) {
	for _, tc := range []struct {
		in         string
		ok, imposs bool
		reason     string
	}{
		{`{"ok": true, "reason": "tests pass"}`, true, false, "tests pass"},
		{"Sure.\n```json\n{\"ok\": false, \"reason\": \"one test fails\"}\n```", false, false, "one test fails"},
		{`{"ok": false, "impossible": true, "reason": "contradiction"}`, false, true, "contradiction"},
		{`I think it is done`, false, false, "not the JSON asked for"},
	} {
		v, err := parseVerdict(tc.in)
		if err != nil || v.OK != tc.ok || v.Impossible != tc.imposs || !strings.Contains(v.Reason, tc.reason) {
			t.Errorf("parseVerdict(%q) = %+v, %v", tc.in, v, err)
		}
	}
}

func TestMergeResults(t *testing.T) {
	a := agent.TurnResult{Usage: llm.Usage{InputTokens: 10}, CostUSD: 0.5, RoundTrips: 2, ToolCalls: 1, Denials: []agent.Denial{{Tool: "x"}}}
	b := agent.TurnResult{Usage: llm.Usage{InputTokens: 5, OutputTokens: 3}, CostUSD: 0.25, RoundTrips: 1, Text: "final", StopReason: agent.StopCompleted, Denials: []agent.Denial{{Tool: "y"}}}
	m := mergeResults(a, b)
	if m.Usage.InputTokens != 15 || m.Usage.OutputTokens != 3 || m.CostUSD != 0.75 || m.RoundTrips != 3 || m.ToolCalls != 1 || len(m.Denials) != 2 || m.Text != "final" {
		t.Errorf("merged = %+v", m)
	}
	if u := mergeResults(a, agent.TurnResult{CostUSD: -1}); u.CostUSD != -1 {
		t.Errorf("unknown cost became %v", u.CostUSD)
	}
}

func TestLastTurnTranscript(t *testing.T) {
	h := []llm.Message{
		llm.UserText("old request"),
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "old answer"}}},
		llm.UserText("make the tests pass"),
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "1", Name: "run_shell", Input: []byte(`{"command":"go test ./..."}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: "1", Content: "ok  example 0.1s"}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "All green."}}},
	}
	got := lastTurnTranscript(h, 10000)
	if strings.Contains(got, "old") || !strings.Contains(got, "go test") || !strings.Contains(got, "ok  example") || !strings.Contains(got, "All green.") {
		t.Errorf("transcript:\n%s", got)
	}
	if short := lastTurnTranscript(h, 20); len([]rune(short)) > 21 || !strings.HasSuffix(short, "All green.\n") {
		t.Errorf("limited transcript %q", short)
	}
}
