package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent/agenttest"
)

// stopper is a hook runner whose Stop hook always wants to go on.
type stopper struct {
	fakeHooks
	calls  []bool
	events []string
}

func (s *stopper) Stop(_ context.Context, event, _ string, active bool) HookOutcome {
	s.calls = append(s.calls, active)
	s.events = append(s.events, event)
	return HookOutcome{Block: true, Reason: "keep going"}
}

// A Stop hook that always blocks keeps the turn going at most
// MaxStopBlocks times; each time its reason is the next user message.
func TestStopHookIsBounded(t *testing.T) {
	steps := make([]agenttest.Step, MaxStopBlocks+1)
	for i := range steps {
		steps[i] = agenttest.Step{Text: "done?"}
	}
	p := agenttest.NewProvider(steps...)
	hk := &stopper{}
	h := newHarness(t, p, nil, func(c *Config) { c.Hooks = hk })
	res := h.a.Run(context.Background(), "go")
	if res.StopReason != StopCompleted {
		t.Fatalf("stop reason %s: %s", res.StopReason, res.Err)
	}
	if n := len(p.Requests()); n != MaxStopBlocks+1 {
		t.Fatalf("%d requests, want %d", n, MaxStopBlocks+1)
	}
	if len(hk.calls) != MaxStopBlocks+1 || hk.calls[0] || !hk.calls[1] || hk.events[0] != "Stop" {
		t.Errorf("Stop calls %v %v", hk.calls, hk.events)
	}
	last := p.Requests()[MaxStopBlocks].Messages
	if txt := last[len(last)-1].Text(); !strings.Contains(txt, "Stop hook feedback: keep going") {
		t.Errorf("last user message %q", txt)
	}
	var warned bool
	for _, n := range eventsOf[Notice](h.ev) {
		warned = warned || strings.Contains(n.Text, "stopping anyway")
	}
	if !warned {
		t.Error("no notice that the Stop hook was overruled")
	}
	h.checkInvariants()
}
