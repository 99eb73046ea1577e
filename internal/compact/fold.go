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
		c.summary = localSummary(old)
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
	if err := ValidateHistory(after); err != nil {
		// A history that was already irregular only has to keep its pairs.
		if ValidateHistory(before) == nil {
			return err
		}
		if err := validatePairs(after); err != nil {
			return err
		}
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

// ValidateHistory checks the rules providers enforce on a history: it starts
// with a user message, roles alternate, no message is empty, and every
// tool_use is answered by a tool_result with the same id in the very next
// message (and every tool_result answers one).
func ValidateHistory(h []llm.Message) error {
	if len(h) == 0 {
		return nil
	}
	if h[0].Role != llm.RoleUser {
		return fmt.Errorf("history starts with a %s message", h[0].Role)
	}
	for i, msg := range h {
		if len(msg.Content) == 0 {
			return fmt.Errorf("message %d is empty", i)
		}
		if i > 0 && msg.Role == h[i-1].Role {
			return fmt.Errorf("messages %d and %d are both %s messages", i-1, i, msg.Role)
		}
	}
	return validatePairs(h)
}

// validatePairs checks only the tool_use/tool_result pairing.
func validatePairs(h []llm.Message) error {
	seen := map[string]bool{}
	var open map[string]bool // tool_use ids of the previous assistant message
	for i, msg := range h {
		if msg.Role == llm.RoleAssistant {
			if len(open) > 0 {
				return fmt.Errorf("tool calls of message %d are not answered", i-1)
			}
			open = nil
			for _, b := range msg.Content {
				if b.Type == llm.BlockToolResult {
					return fmt.Errorf("message %d: tool_result in an assistant message", i)
				}
				if b.Type != llm.BlockToolUse {
					continue
				}
				if b.ID == "" || seen[b.ID] {
					return fmt.Errorf("message %d: tool call id %q is empty or repeated", i, b.ID)
				}
				seen[b.ID] = true
				if open == nil {
					open = map[string]bool{}
				}
				open[b.ID] = true
			}
			continue
		}
		for _, b := range msg.Content {
			if b.Type == llm.BlockToolUse {
				return fmt.Errorf("message %d: tool_use in a user message", i)
			}
			if b.Type != llm.BlockToolResult {
				continue
			}
			if !open[b.ID] {
				return fmt.Errorf("message %d: tool_result %q answers no call of the previous message", i, b.ID)
			}
			delete(open, b.ID)
		}
		if len(open) > 0 {
			return fmt.Errorf("message %d leaves %d tool call(s) of message %d unanswered", i, len(open), i-1)
		}
		open = nil
	}
	if len(open) > 0 {
		return fmt.Errorf("the last message's %d tool call(s) are not answered", len(open))
	}
	return nil
}
