package scenario

import "sync"

// Step is what one main-loop request gets: a turn to answer with, or a fault
// for this attempt. Turn is nil when the scenario has run out of turns.
type Step struct {
	Turn *Turn
	// Number is the 1-based turn number (for messages).
	Number int
	// Fault, when set, answers this attempt with an HTTP error.
	Fault *Fault
	// CutAfter > 0 drops the stream after that many chunks.
	CutAfter int
	// StreamError, when set, is sent inside the 200 stream.
	StreamError *StreamFault
}

// Player hands out turns in order, one shared counter for every request,
// and counts each turn's remaining faults. It is safe for concurrent use.
type Player struct {
	mu     sync.Mutex
	sc     *Scenario
	next   int
	failed int
	cuts   int
	errs   int
}

// NewPlayer starts at the first turn of sc.
func NewPlayer(sc *Scenario) *Player { return &Player{sc: sc} }

// Next decides the answer to the next main-loop request (attempt).
func (p *Player) Next() Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.next >= len(p.sc.Turns) {
			return Step{Number: p.next + 1}
		}
		t := &p.sc.Turns[p.next]
		n := p.next + 1
		if t.Error != nil && p.failed < t.Error.Times {
			p.failed++
			return Step{Turn: t, Number: n, Fault: t.Error}
		}
		if t.OnlyFault() {
			p.advance()
			continue
		}
		st := Step{Turn: t, Number: n}
		if t.StreamError != nil && p.errs < t.StreamError.Times {
			p.errs++
			st.StreamError = t.StreamError
			return st
		}
		if t.CutAfterChunks > 0 && p.cuts < t.CutTimes {
			p.cuts++
			st.CutAfter = t.CutAfterChunks
			return st
		}
		p.advance()
		return st
	}
}

func (p *Player) advance() {
	p.next++
	p.failed, p.cuts, p.errs = 0, 0, 0
}

// Delivered records that turn number n was sent whole even though its step
// carried a cut or stream fault (the fault's chunk count was past the end of
// the answer), so the turn is not served again.
func (p *Player) Delivered(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next+1 == n && p.next < len(p.sc.Turns) {
		p.advance()
	}
}

// Remaining is how many turns are not yet fully served.
func (p *Player) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sc.Turns) - p.next
}
