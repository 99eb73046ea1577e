// Package wakeup is the schedule of dynamic loops (/loop dynamic PROMPT):
// at the end of a round the model says when the next round should run, or
// ends the loop by not asking. The model asks through the schedule_wakeup
// tool (internal/tools/wakeup); the loop reads the answer with Take.
package wakeup

import (
	"errors"
	"strings"
	"sync"
	"time"
)

// Bounds of a wake-up delay (the seed's 60–3600 s).
const (
	MinDelay = 60 * time.Second
	MaxDelay = time.Hour
)

// ErrNoLoop is Ask's answer outside a round of a dynamic loop.
var ErrNoLoop = errors.New("not inside a dynamic loop")

// Schedule records the wake-up asked for during the running round.
type Schedule struct {
	mu      sync.Mutex
	active  bool
	pending *Request
}

// Request is a scheduled wake-up.
type Request struct {
	Delay  time.Duration
	Reason string
}

// Begin starts a round: a wake-up asked for during it will be returned by Take.
func (s *Schedule) Begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active, s.pending = true, nil
}

// Take ends the round and returns its wake-up, if the model asked for one.
func (s *Schedule) Take() (Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active = false
	if s.pending == nil {
		return Request{}, false
	}
	r := *s.pending
	s.pending = nil
	return r, true
}

// Ask schedules the next round after delay, brought within MinDelay and
// MaxDelay; it replaces an earlier request of the same round. Outside a
// round it returns ErrNoLoop.
func (s *Schedule) Ask(delay time.Duration, reason string) (Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active {
		return Request{}, ErrNoLoop
	}
	s.pending = &Request{Delay: min(max(delay, MinDelay), MaxDelay), Reason: strings.TrimSpace(reason)}
	return *s.pending, nil
}
