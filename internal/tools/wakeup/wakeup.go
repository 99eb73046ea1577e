// Package wakeup is the schedule_wakeup tool: the model's way to ask a
// dynamic loop for its next round (the schedule is internal/wakeup). The
// tool is deferred, so the tool list of sessions that never loop does not
// change.
package wakeup

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hew-dev/hew/internal/tools"
	"github.com/hew-dev/hew/internal/wakeup"
)

// Name is the tool's name (SPEC section 4).
const Name = "schedule_wakeup"

//go:embed schedule_wakeup.md
var description embed.FS

var spec = tools.NewSpec(description, Name, `{"type":"object","properties":{"delay_seconds":{"type":"integer","description":"seconds until the next round (60-3600)"},"reason":{"type":"string","description":"what the next round will check"}},"required":["delay_seconds","reason"],"additionalProperties":false}`).Verbatim()

// Tool is schedule_wakeup: it records the request of the running round in
// its schedule.
type Tool struct {
	tools.Spec
	s *wakeup.Schedule
}

// New makes the tool over the loop's schedule.
func New(s *wakeup.Schedule) *Tool { return &Tool{Spec: spec, s: s} }

// ReadOnly implements tools.Tool: it only records a wish.
func (*Tool) ReadOnly(json.RawMessage) bool { return true }

// Deferred implements tools.Deferred: only dynamic loops make it visible.
func (*Tool) Deferred() bool { return true }

// MainAgentOnly implements tools.MainAgentOnly: the loop is the main
// conversation's.
func (*Tool) MainAgentOnly() bool { return true }

// SessionOnly implements tools.SessionOnly: only a session loops.
func (*Tool) SessionOnly() bool { return true }

// Run implements tools.Tool.
func (t *Tool) Run(_ context.Context, _ *tools.Env, input json.RawMessage) (tools.Result, error) {
	var in struct {
		DelaySeconds int    `json:"delay_seconds"`
		Reason       string `json:"reason"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("invalid input: %w", err)
	}
	asked := time.Duration(in.DelaySeconds) * time.Second
	r, err := t.s.Ask(asked, in.Reason)
	if errors.Is(err, wakeup.ErrNoLoop) {
		return tools.Result{}, errors.New("schedule_wakeup works only inside a dynamic loop (/loop dynamic PROMPT); nothing was scheduled")
	}
	if err != nil {
		return tools.Result{}, err
	}
	msg := fmt.Sprintf("Next round in %s: %s", r.Delay, r.Reason)
	if r.Delay != asked {
		msg += fmt.Sprintf(" (%ds was outside 60-3600 s)", in.DelaySeconds)
	}
	return tools.Result{Content: msg}, nil
}
