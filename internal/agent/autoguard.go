package agent

import (
	"fmt"
	"sync"

	"github.com/hew-dev/hew/internal/permission"
)

// Auto-mode limits (seed 001, Auto Mode): after this many classifier blocks
// in a row, or in all, auto mode stops deciding alone.
const (
	AutoMaxConsecutiveBlocks = 3
	AutoMaxTotalBlocks       = 20
)

// AutoStats counts auto mode's classifier decisions in a session, for
// /status.
type AutoStats struct {
	Allowed, Blocked int
	// Consecutive is the current run of blocks.
	Consecutive int
	// FellBack is set once a limit was reached: calls the classifier
	// would decide are asked instead (headless runs stop).
	FellBack bool
	// Why says which limit was reached.
	Why string
}

// autoGuard keeps AutoStats and trips the fallback. A classifier that
// keeps blocking means the agent and its judge disagree about the task;
// a person should look rather than the loop retrying.
type autoGuard struct {
	mu sync.Mutex
	st AutoStats
}

func (g *autoGuard) stats() AutoStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.st
}

func (g *autoGuard) fellBack() (bool, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.st.FellBack, g.st.Why
}

// record counts one classifier decision and reports whether this one
// tripped the fallback.
func (g *autoGuard) record(allowed bool) (tripped bool, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if allowed {
		g.st.Allowed++
		g.st.Consecutive = 0
		return false, ""
	}
	g.st.Blocked++
	g.st.Consecutive++
	if g.st.FellBack {
		return false, g.st.Why
	}
	switch {
	case g.st.Consecutive >= AutoMaxConsecutiveBlocks:
		g.st.Why = fmt.Sprintf("the classifier blocked %d calls in a row", g.st.Consecutive)
	case g.st.Blocked >= AutoMaxTotalBlocks:
		g.st.Why = fmt.Sprintf("the classifier blocked %d calls in this session", g.st.Blocked)
	default:
		return false, ""
	}
	g.st.FellBack = true
	return true, g.st.Why
}

// AutoStats reports auto mode's decisions so far.
func (a *Agent) AutoStats() AutoStats { return a.pipe.auto.stats() }

// autoFallback turns a verdict the classifier would decide into a question
// once the guard has tripped.
func (p *pipeline) autoFallback(v permission.Verdict) permission.Verdict {
	if !v.Classify {
		return v
	}
	if on, why := p.auto.fellBack(); on {
		v.Classify, v.Decision = false, permission.Ask
		v.Reason = "auto mode asks now (" + why + "): " + orDefault(v.Reason, "the call needs a decision")
		v.Source = "auto-fallback"
	}
	return v
}

// afterClassify counts a classifier decision; when it trips the fallback
// the user is told, and a run nobody can be asked in ends the turn.
func (p *pipeline) afterClassify(pr *prepared, allowed bool) {
	tripped, why := p.auto.record(allowed)
	if !tripped {
		return
	}
	if _, headless := p.cfg.Approver.(Headless); headless || p.cfg.Approver == nil {
		p.emit(Notice{Level: "warn", Text: "auto mode: " + why + "; nobody can be asked in this run, so it stops"})
		pr.out.halt = "auto mode stopped: " + why + " (nobody can be asked in this run)"
		return
	}
	p.emit(Notice{Level: "warn", Text: "auto mode: " + why + "; from now on such calls are asked"})
}
