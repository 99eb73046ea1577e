package compact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
)

var (
	errNothingToFold = errors.New("nothing to compact yet")
	errNotSmaller    = errors.New("compaction would not make the history smaller")
)

// foldOpts says how one compaction (tier 4) is made.
type foldOpts struct {
	reason, focus string
	// keep is the token budget of the verbatim tail.
	keep int
	// model asks the provider for the summary; fallback folds locally when
	// that fails instead of giving up.
	model, fallback bool
}

// fold replaces the older part of h by a summary, keeps the recent turns
// verbatim, puts back the user's requests, the project instructions and the
// todo list, and health-checks the result; a failed check keeps h.
func (m *Manager) fold(ctx context.Context, req *llm.Request, h []llm.Message, lim limits, o foldOpts, before int) ([]llm.Message, error) {
	k := splitPoint(h, o.keep)
	if k <= 0 {
		return h, errNothingToFold
	}
	old, kept := h[:k], h[k:]
	c := carried{instructions: callText(m.opts.Instructions), todos: callText(m.opts.Todos)}
	c.requests, c.omitted = selectRequests(userRequests(old), max(lim.window/10, 1000))
	local := !o.model || m.opts.Provider == nil
	if !local {
		model := m.opts.Model
		if model == "" {
			model = req.Model
		}
		s, err := m.summarize(ctx, old, model, lim, o.focus)
		switch {
		case err == nil:
			c.summary = s
		case ctx.Err() != nil:
			return h, fmt.Errorf("compaction cancelled: %w", ctx.Err())
		case o.fallback:
			local = true
			m.emit(agent.Notice{Level: "warn", Text: "summary failed (" + err.Error() + "); trimmed the history locally instead"})
		default:
			return h, err
		}
	}
	if local {
		c.summary = localSummary(old, m.tool)
	}
	after := assemble(c, kept)
	if err := m.probe(req, h, after); err != nil {
		m.emit(agent.Notice{Level: "warn", Text: "compaction undone, its health check failed: " + err.Error()})
		return h, fmt.Errorf("health check: %w", err)
	}
	if EstimateMessages(after) >= EstimateMessages(h) {
		return h, errNotSmaller
	}
	afterTok := m.scaled(req, after)
	reason := o.reason
	if local {
		reason += " (trimmed locally)"
	}
	m.emit(agent.Compacted{Tier: 4, TokensBefore: before, TokensAfter: afterTok, Reason: reason})
	m.forced = "compaction"
	m.bump(func(s *Stats) { s.Compactions++; s.TierActions[4]++ })
	if m.opts.Record != nil {
		m.opts.Record("compaction", CompactionRecord{Tier: 4, Reason: reason, TokensBefore: before, TokensAfter: afterTok,
			Summary: c.summary, Folded: len(old), Kept: len(kept)})
	}
	return after, nil
}

func callText(f func() string) string {
	if f == nil {
		return ""
	}
	return f()
}

// probe is the health check after a compaction: the history must still be
// protocol-valid, the tools listed, the working directory and session id
// unchanged, and the user's first request still reachable.
func (m *Manager) probe(req *llm.Request, before, after []llm.Message) error {
	if err := llm.ValidateHistory(after); err != nil {
		return err
	}
	if m.last != nil && m.last.toolCount > 0 && len(req.Tools) == 0 {
		return errors.New("the tool list is empty")
	}
	if env := m.opts.Env; env != nil {
		if m.root != "" && env.Root != m.root {
			return fmt.Errorf("working directory changed from %s to %s", m.root, env.Root)
		}
		if m.sid != "" && env.SessionID != m.sid {
			return fmt.Errorf("session id changed from %s to %s", m.sid, env.SessionID)
		}
		if env.Root != "" {
			if fi, err := os.Stat(env.Root); err != nil || !fi.IsDir() {
				return fmt.Errorf("working directory %s is gone", env.Root)
			}
		}
	}
	if reqs := userRequests(before); len(reqs) > 0 {
		first := headBytes(strings.TrimSpace(reqs[0]), 1000)
		if first != "" && !historyContains(after, first) {
			return errors.New("the user's first request is no longer in the history")
		}
	}
	return nil
}

// snapshotEnv remembers what the probe expects to stay intact.
func (m *Manager) snapshotEnv() {
	if env := m.opts.Env; env != nil && m.root == "" && m.sid == "" {
		m.root, m.sid = env.Root, env.SessionID
	}
}

func headBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func historyContains(h []llm.Message, s string) bool {
	for _, m := range h {
		for _, b := range m.Content {
			if b.Type == llm.BlockText && strings.Contains(b.Text, s) {
				return true
			}
		}
	}
	return false
}
