package core

import (
	"fmt"
	"time"
)

// LoopBudget bounds a /loop (settings "loop"): how many rounds, and what
// it may spend from its first round on. Zero means no limit.
type LoopBudget struct {
	MaxIterations int
	MaxCostUSD    float64
}

// LoopStatus is what /status shows about the running loop.
type LoopStatus struct {
	Round         int
	MaxIterations int
	MaxCostUSD    float64
	SpentUSD      float64 // -1 when unknown
	// NextWake is when the next round starts (zero while a round runs).
	NextWake time.Time
	Reason   string
}

type loopRun struct {
	round    int
	baseCost float64
	next     time.Time
	reason   string
}

// LoopNext is called by the front-end after round of a /loop finished,
// before it waits wait for the next one: it enforces the loop's limits and
// records the next wake-up for /status. ok false means the loop must end,
// and why says which limit ended it.
func (s *Session) LoopNext(round int, wait time.Duration, reason string) (ok bool, why string) {
	_, cost := s.agent.Usage()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loop == nil || round <= 1 {
		s.loop = &loopRun{baseCost: s.loopStartCost}
	}
	l := s.loop
	l.round = round
	b := s.o.LoopBudget
	spent := cost - l.baseCost
	if cost < 0 || l.baseCost < 0 {
		spent = -1
	}
	switch {
	case b.MaxIterations > 0 && round >= b.MaxIterations:
		s.loop = nil
		return false, fmt.Sprintf("the loop's limit of %d rounds is reached", b.MaxIterations)
	case b.MaxCostUSD > 0 && spent >= b.MaxCostUSD:
		s.loop = nil
		return false, fmt.Sprintf("the loop's cost cap of $%.2f is reached ($%.4f spent)", b.MaxCostUSD, spent)
	}
	l.next, l.reason = s.o.Now().Add(wait), reason
	return true, ""
}

// LoopStarted marks the start of a /loop's first round, so its spend is
// counted from there.
func (s *Session) LoopStarted() {
	_, cost := s.agent.Usage()
	s.mu.Lock()
	s.loop, s.loopStartCost = &loopRun{baseCost: cost}, cost
	s.mu.Unlock()
}

// LoopEnded forgets the loop (it was stopped or ran out).
func (s *Session) LoopEnded() {
	s.mu.Lock()
	s.loop = nil
	s.mu.Unlock()
}

// LoopStatus reports the running loop; ok is false when there is none.
func (s *Session) LoopStatus() (LoopStatus, bool) {
	_, cost := s.agent.Usage()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loop == nil {
		return LoopStatus{}, false
	}
	l := s.loop
	spent := cost - l.baseCost
	if cost < 0 || l.baseCost < 0 {
		spent = -1
	}
	next := l.next
	if !next.IsZero() && !next.After(s.o.Now()) {
		next = time.Time{} // the round is running
	}
	return LoopStatus{Round: l.round, MaxIterations: s.o.LoopBudget.MaxIterations, MaxCostUSD: s.o.LoopBudget.MaxCostUSD,
		SpentUSD: spent, NextWake: next, Reason: l.reason}, true
}
