// Package wakeup holds the schedule_wakeup tool of dynamic loops
// (/loop dynamic PROMPT): at the end of a round the model says when the next
// round should run, or ends the loop by not asking. The tool is deferred, so
// the tool list of sessions that never loop does not change.
package wakeup

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/tools"
)

// Name is the tool's name (SPEC section 4).
const Name = "schedule_wakeup"

// Bounds of a wake-up delay (the seed's 60–3600 s).
const (
	MinDelay = 60 * time.Second
	MaxDelay = time.Hour
)

//go:embed schedule_wakeup.md
var description string

var schema = json.RawMessage(`{"type":"object","properties":{"delay_seconds":{"type":"integer","description":"seconds until the next round (60-3600)"},"reason":{"type":"string","description":"what the next round will check"}},"required":["delay_seconds","reason"],"additionalProperties":false}`)

// Tool is schedule_wakeup. It records the request of the running round; the
// loop reads it with Take after the round ends.
type Tool struct {
	mu      sync.Mutex
	active  bool
	pending *Request
}

// Request is a scheduled wake-up.
type Request struct {
	Delay  time.Duration
	Reason string
}

// Name implements tools.Tool.
func (*Tool) Name() string { return Name }

// Description implements tools.Tool.
func (*Tool) Description() string { return description }

// Schema implements tools.Tool.
func (*Tool) Schema() json.RawMessage { return schema }

// ReadOnly implements tools.Tool: it only records a wish.
func (*Tool) ReadOnly(json.RawMessage) bool { return true }

// Deferred implements tools.Deferred: only dynamic loops make it visible.
func (*Tool) Deferred() bool { return true }

// Begin starts a round: a wake-up asked for during it will be returned by Take.
func (t *Tool) Begin() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active, t.pending = true, nil
}

// Take ends the round and returns its wake-up, if the model asked for one.
func (t *Tool) Take() (Request, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active = false
	if t.pending == nil {
		return Request{}, false
	}
	r := *t.pending
	t.pending = nil
	return r, true
}

// Run implements tools.Tool.
func (t *Tool) Run(_ context.Context, _ *tools.Env, input json.RawMessage) (tools.Result, error) {
	var in struct {
		DelaySeconds int    `json:"delay_seconds"`
		Reason       string `json:"reason"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("invalid input: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.active {
		return tools.Result{}, errors.New("schedule_wakeup works only inside a dynamic loop (/loop dynamic PROMPT); nothing was scheduled")
	}
	d := min(max(time.Duration(in.DelaySeconds)*time.Second, MinDelay), MaxDelay)
	t.pending = &Request{Delay: d, Reason: strings.TrimSpace(in.Reason)}
	msg := fmt.Sprintf("Next round in %s: %s", d, t.pending.Reason)
	if d != time.Duration(in.DelaySeconds)*time.Second {
		msg += fmt.Sprintf(" (%ds was outside 60-3600 s)", in.DelaySeconds)
	}
	return tools.Result{Content: msg}, nil
}
