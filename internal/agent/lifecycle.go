package agent

import (
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

// stopHook runs the Stop (or SubagentStop) hooks when the model ends its
// answer. It reports whether a hook kept the turn going; its reason is
// then the next user message. At most MaxStopBlocks times per turn, so a
// hook cannot keep the loop alive forever.
func (t *turn) stopHook() bool {
	lh, ok := t.a.cfg.Hooks.(StopHooks)
	if !ok || t.ctx.Err() != nil {
		return false
	}
	event := t.a.cfg.StopEvent
	if event == "" {
		event = "Stop"
	}
	out := lh.Stop(t.ctx, event, t.a.cfg.SessionID, t.stopBlocks > 0)
	if out.Message != "" {
		t.a.pipe.emit(Notice{Level: "info", Text: out.Message})
	}
	if !out.Block {
		return false
	}
	if t.stopBlocks >= MaxStopBlocks {
		t.a.pipe.emit(Notice{Level: "warn", Text: fmt.Sprintf("a %s hook blocked the stop %d times; stopping anyway", event, t.stopBlocks)})
		return false
	}
	t.stopBlocks++
	reason := strings.TrimSpace(out.Reason)
	if reason == "" {
		reason = "a " + event + " hook asked to continue"
	}
	t.a.pipe.emit(Notice{Level: "info", Text: event + " hook: continuing: " + reason})
	t.a.append(llm.UserText(event + " hook feedback: " + reason))
	return true
}
