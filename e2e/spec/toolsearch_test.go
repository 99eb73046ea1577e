package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 12.13: ENABLE_TOOL_SEARCH=true loads deferred tools natively on
// the Anthropic wire, against any server: every deferred tool is sent
// with defer_loading from the first request, tool_search answers with a
// tool_reference, the tools array is the same bytes in every request, and
// the model calls the loaded tools — enter_plan_mode, then exit_plan_mode,
// which enter_plan_mode's result references (the mock server refuses a
// call of a deferred tool nothing referenced, and what the API would refuse).
func TestNativeToolSearchEndToEnd(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock(`{"turns":[
		{"tool_calls":[{"name":"tool_search","input":{"query":"select:enter_plan_mode"}}]},
		{"tool_calls":[{"name":"enter_plan_mode","input":{}}]},
		{"tool_calls":[{"name":"exit_plan_mode","input":{"plan":"# Plan\n1. Do it."}}]},
		{"text":"planned"}]}`)
	r := w.hewEnv(append(ms.anthropicEnv(), "ENABLE_TOOL_SEARCH=true"), "-p", "plan it")
	if r.code != 0 || !strings.Contains(r.stdout, "Do it.") {
		t.Fatalf("hew -p: %s", r)
	}
	var mains []recorded
	for _, r := range ms.requests() {
		if strings.HasSuffix(r.path, "/v1/messages") {
			mains = append(mains, r)
		}
	}
	if len(mains) < 3 {
		t.Fatalf("%d requests, want at least 3", len(mains))
	}
	first, _ := json.Marshal(mains[0].body["tools"])
	if !strings.Contains(string(first), `"defer_loading":true`) || !strings.Contains(string(first), `"enter_plan_mode"`) {
		t.Fatalf("first request does not send the deferred tools: %s", first)
	}
	for i, r := range mains {
		if got, _ := json.Marshal(r.body["tools"]); string(got) != string(first) {
			t.Errorf("request %d: the tools array changed", i+1)
		}
	}
	msgs, _ := json.Marshal(mains[1].body["messages"])
	if !strings.Contains(string(msgs), `{"tool_name":"enter_plan_mode","type":"tool_reference"}`) {
		t.Errorf("tool_search's result has no tool_reference: %s", msgs)
	}
	msgs, _ = json.Marshal(mains[2].body["messages"])
	if !strings.Contains(string(msgs), `{"tool_name":"exit_plan_mode","type":"tool_reference"}`) {
		t.Errorf("enter_plan_mode's result does not reference exit_plan_mode: %s", msgs)
	}
}

// Issue 12.13 and 20: on the native path the first request also carries
// every deferred definition (defer_loading), which the API keeps out of
// the prompt until one is referenced. The budget holds for what the model
// reads; the wire total and the deferred definitions' cost are logged.
func TestFirstRequestBudgetNative(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock(`{"turns":[{"text":"hi"}]}`)
	if r := w.hewEnv(append(ms.anthropicEnv(), "ENABLE_TOOL_SEARCH=true"), "-p", "hello"); r.code != 0 {
		t.Fatalf("hew -p: %s", r)
	}
	reqs := ms.requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the server")
	}
	r := reqs[0]
	deferred := 0
	tl, _ := r.body["tools"].([]any)
	for _, tool := range tl {
		if m, _ := tool.(map[string]any); m["defer_loading"] == true {
			b, _ := json.Marshal(tool)
			deferred += len(b) + 1
			t.Logf("  deferred %-16v %5d bytes", m["name"], len(b))
		}
	}
	const budget = 20 * 1024
	t.Logf("first request (native): %d bytes on the wire, %d of them deferred definitions; %d bytes reach the prompt (budget %d)",
		r.size, deferred, r.size-deferred, budget)
	if deferred == 0 {
		t.Fatal("no deferred definitions on the native path")
	}
	if r.size-deferred > budget {
		t.Errorf("the prompt part of the first request is %d bytes, over the %d-byte budget", r.size-deferred, budget)
	}
}

// A server that refuses native loading (a 400 naming defer_loading) costs
// one resend: the run goes on the client-side way, and stderr says so once.
func TestNativeToolSearchRefusedFallsBack(t *testing.T) {
	w := newWorld(t)
	ms := w.startMock(`{"turns":[
		{"error":{"status":400,"type":"invalid_request_error","message":"tools.10.custom.defer_loading: Extra inputs are not permitted"}},
		{"tool_calls":[{"name":"tool_search","input":{"query":"select:enter_plan_mode"}}]},
		{"tool_calls":[{"name":"enter_plan_mode","input":{}}]},
		{"text":"planning"}]}`)
	r := w.hewEnv(append(ms.anthropicEnv(), "ENABLE_TOOL_SEARCH=true"), "-p", "plan it")
	if r.code != 0 || !strings.Contains(r.stdout, "planning") {
		t.Fatalf("hew -p: %s", r)
	}
	if n := strings.Count(r.stderr, "refused native tool loading"); n != 1 {
		t.Errorf("%d notices of the refusal on stderr, want 1:\n%s", n, r.stderr)
	}
	reqs := ms.requests()
	if len(reqs) < 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, q := range reqs[1:] {
		b, _ := json.Marshal(q.body)
		if strings.Contains(string(b), "defer_loading") || strings.Contains(string(b), "tool_reference") {
			t.Errorf("request %d after the refusal still loads natively", i+2)
		}
	}
	if tl, _ := json.Marshal(reqs[len(reqs)-1].body["tools"]); !strings.Contains(string(tl), `"enter_plan_mode"`) {
		t.Errorf("the loaded tool did not join the tool list after the fallback")
	}
}
