package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/tools"
)

// A tool that ran but had part of its work refused (a domain the sandbox's
// proxy refused) adds that refusal to the turn's permission denials, and
// its connections ride on the receipt.
func TestDenialsInsideARunJoinTheTurn(t *testing.T) {
	sh := &agenttest.Tool{ToolName: "run_shell", Fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "curl: (56) CONNECT tunnel failed", IsError: true,
			Network: []netproxy.Receipt{
				{Host: "registry.test", Port: 443, Decision: "allow", By: "default-list", Up: 10, Down: 2048},
				{Host: "evil.test", Port: 443, Decision: "deny", By: "headless", Reason: "not allowed"},
			},
			Denials: []tools.Denied{{Input: json.RawMessage(`{"domain":"evil.test","port":443}`), Reason: "network: not allowed"}},
		}, nil
	}}
	p := agenttest.NewProvider(step{Calls: []llm.Block{call("c1", "run_shell", `{}`)}}, step{Text: "done"})
	h := newHarness(t, p, []tools.Tool{sh}, nil)
	res := h.a.Run(context.Background(), "go")
	if len(res.Denials) != 1 || res.Denials[0].ToolUseID != "c1" || res.Denials[0].Tool != "run_shell" ||
		string(res.Denials[0].Input) != `{"domain":"evil.test","port":443}` || res.Denials[0].Reason != "network: not allowed" {
		t.Fatalf("denials %+v", res.Denials)
	}
	rs := h.rec.receipts()
	if len(rs) != 1 || len(rs[0].Network) != 2 {
		t.Fatalf("receipts %+v", rs)
	}
	if s := rs[0].Summary(); !strings.Contains(s, "network: evil.test:443 deny by headless; registry.test:443 allow by default-list ↑10 B ↓2.0 kB") {
		t.Errorf("summary %q", s)
	}
}
