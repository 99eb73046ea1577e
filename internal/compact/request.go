package compact

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
)

// sent is the fingerprint of the last main request: a hash per system
// block, per tool and per message, so a changed prefix can be pinned down
// to the part whose bytes changed.
type sent struct {
	at        time.Time
	model     string
	sys       []uint64
	tools     []toolPrint
	msgs      []uint64
	est       int // unscaled estimate of its input tokens
	toolCount int
}

type toolPrint struct {
	name string
	hash uint64
}

// pendingCheck is what BeforeRequest found about the prefix, judged in
// AfterResponse once the cache figures are known.
type pendingCheck struct {
	valid bool
	// expected lists deliberate prefix changes; changed lists the parts
	// whose bytes changed for no reason the manager knows of.
	expected, changed []string
	// toolsChanged: tools were added or removed (a deferred tool activated,
	// an MCP server came or went); tools lead the prefix, so this request
	// rebuilds the whole cache.
	toolsChanged bool
	// toolsWhy is toolsChanged's entry in expected.
	toolsWhy string
}

// BeforeRequest runs tiers 1–3 (and, when a request would not fit at all,
// stronger steps) on the history about to be sent, fingerprints the request
// and returns the history to store and send.
func (m *Manager) BeforeRequest(req *llm.Request) []llm.Message {
	m.lock()
	defer m.unlock()
	m.snapshotEnv()
	now := m.opts.Now()
	lim := m.limitsFor(req)
	h := req.Messages
	hashes := m.hashMessages(h)
	toks := m.messageTokens(h, hashes)
	e := newEditor(h, toks)
	calls := m.indexCalls(h)
	keepFrom := keepBoundary(h, m.opts.KeepRecent)
	m.fixed(req)
	est := func() int { return m.scaledTokens(req, e) }
	cur := m.usage(req, hashes, toks)

	warm, idle := false, false
	if m.last != nil && m.last.model == req.Model {
		age := now.Sub(m.last.at)
		warm, idle = age < m.opts.CacheTTL, age >= m.opts.CacheTTL
	}
	// While the cache is warm the prefix sent last time is an asset: the
	// cheap tiers only touch what comes after it.
	frozen := 0
	if warm && prefixSame(hashes, m.last.msgs) {
		frozen = len(m.last.msgs)
	}
	step := func(tier, n, before int, why string) {
		if n == 0 {
			return
		}
		m.emit(agent.Compacted{Tier: tier, TokensBefore: before, TokensAfter: est(), Reason: fmt.Sprintf("%d tool result(s) %s", n, why)})
		m.bump(func(s *Stats) { s.TierActions[tier]++ })
	}
	// cur counts from the provider's report, valid until a tier edits.
	size := func() int {
		if e.low < len(h) {
			return est()
		}
		return max(est(), cur)
	}
	if idle {
		b := est()
		step(3, clearResults(e, calls, 0, keepFrom, microMinimum), b, "cleared after the cache went cold")
	}
	b := est()
	step(2, snipSuperseded(e, calls, frozen), b, "superseded by a newer read snipped")
	b = size()
	switch {
	case b > lim.window*70/100:
		step(1, shortenResults(e, calls, frozen, keepFrom, budgetHard, true), b, "shortened or snipped (context above 70%)")
	case b > lim.window/2:
		step(1, shortenResults(e, calls, frozen, keepFrom, budgetSoft, false), b, "shortened (context above 50%)")
	}
	out, folded := e.msgs, false
	if t := size(); t > lim.autoAt {
		out, folded = m.squeeze(req, e, calls, keepFrom, lim, t)
	}

	outHashes, outToks := hashes, e.toks
	if folded || e.low < len(h) {
		outHashes = m.hashMessages(out)
	}
	if folded {
		outToks = make([]int, len(out))
		for i, msg := range out {
			outToks[i] = EstimateMessage(msg)
		}
	}
	m.remember(outHashes, outToks)
	if !folded && m.last != nil && e.low < len(m.last.msgs) && m.forced == "" {
		m.forced = "the context tiers rewrote the cached prefix"
	}
	est0 := m.fixed(req) + sum(outToks)
	tokens := int(float64(est0) * m.ratio)
	m.checkPrefix(req, outHashes, now)
	m.last = &sent{at: now, model: req.Model, sys: m.hashSystem(req.System), tools: m.hashTools(req.Tools),
		msgs: outHashes, est: est0, toolCount: len(req.Tools)}
	m.bump(func(s *Stats) { s.ContextTokens, s.Window = tokens, lim.window })
	return out
}

// scaledTokens is the scaled estimate of req with e's messages; it uses the
// fixed part computed at the start of BeforeRequest.
func (m *Manager) scaledTokens(_ *llm.Request, e *editor) int {
	return int(float64(m.fixedVal+e.tokens()) * m.ratio)
}

// squeeze is the path for a history above the threshold in the middle of a
// turn, where no summary may be written: cache discipline gives way, older
// results are cut harder, then the recent ones oldest first (the newest
// last and least), and as a last resort the oldest messages are folded
// locally so the request fits the window.
func (m *Manager) squeeze(req *llm.Request, e *editor, calls map[string]call, keepFrom int, lim limits, cur int) ([]llm.Message, bool) {
	target := lim.window * 60 / 100
	report := func(before, n int, why string) {
		if n > 0 {
			m.emit(agent.Compacted{Tier: 1, TokensBefore: before, TokensAfter: m.scaledTokens(req, e), Reason: fmt.Sprintf("%d tool result(s) %s", n, why)})
			m.bump(func(st *Stats) { st.TierActions[1]++ })
		}
	}
	older := []struct {
		why string
		run func() int
	}{
		{"snipped or cut to 2 KB (context above the threshold)", func() int { return shortenResults(e, calls, 0, keepFrom, budgetHard, true) }},
		{"cut to 500 bytes (context above the threshold)", func() int { return shortenResults(e, calls, 0, keepFrom, budgetTight, false) }},
		{"cleared (context above the threshold)", func() int { return clearResults(e, calls, 0, keepFrom, microMinimum) }},
	}
	for i, s := range older {
		t := m.scaledTokens(req, e)
		if i == 0 {
			t = max(t, cur)
		}
		if t <= target {
			break
		}
		report(t, s.run(), s.why)
	}
	// Still above the window: the recent results, oldest first.
	last := len(e.msgs) - 1
	for _, size := range []int{budgetHard, budgetTight} {
		t, n := m.scaledTokens(req, e), 0
		for i := keepFrom; i < last && m.scaledTokens(req, e) > lim.limit; i++ {
			n += shortenResults(e, calls, i, i+1, size, false)
		}
		report(t, n, fmt.Sprintf("of the recent ones cut to %d bytes (request above the window)", size))
	}
	// The newest results get what room is left.
	if t := m.scaledTokens(req, e); t > lim.limit && last >= 0 && hasToolResults(e.msgs[last]) {
		room := lim.limit - (t - int(float64(e.toks[last])*m.ratio))
		k := 0
		for _, b := range e.msgs[last].Content {
			if b.Type == llm.BlockToolResult {
				k++
			}
		}
		size := max(room*3/max(k, 1)-400, budgetTight) // ≥ 3 bytes a token for any script
		report(t, shortenResults(e, calls, last, last+1, size, false), "of the newest cut to fit the window")
	}
	t := m.scaledTokens(req, e)
	if t <= lim.limit {
		return e.msgs, false
	}
	// Even the results alone do not explain the size: fold the oldest
	// messages locally, keeping the pairs and the user's requests.
	h, err := m.fold(context.Background(), req, e.msgs, lim, foldOpts{reason: "request above the window in mid-turn", keep: lim.limit / 2}, t)
	if err != nil {
		return e.msgs, false
	}
	return h, true
}

// AfterResponse records the provider's usage figures, recalibrates the
// estimate and reports a cache drop nobody caused.
func (m *Manager) AfterResponse(req *llm.Request, resp *llm.Response) {
	if resp == nil {
		return
	}
	m.lock()
	defer m.unlock()
	u := resp.Usage
	in := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	m.bump(func(s *Stats) {
		s.Requests++
		s.InputTokens += u.InputTokens
		s.CacheReadTokens += u.CacheReadTokens
		s.CacheWriteTokens += u.CacheWriteTokens
		s.OutputTokens += u.OutputTokens
		if in > 0 {
			s.ContextTokens = in
		}
	})
	if in > 0 && m.last != nil && m.last.est > 0 {
		m.ratio = min(max(float64(in)/float64(m.last.est), 1), 2)
		m.reported, m.reportedOK = in+u.OutputTokens, true
	}
	p := m.pending
	m.pending = pendingCheck{}
	if resp.Wire != nil {
		// The adapter's fingerprints of what went out are the truth about
		// the prefix: they see encoding changes the neutral history hides,
		// and ignore neutral changes that encode the same.
		if m.lastWire != nil {
			p.changed = wireChanges(m.lastWire, resp.Wire)
			if p.toolsChanged && slices.Equal(m.lastWire.Tools, resp.Wire.Tools) {
				// The neutral list grew but the wire's did not: the tool
				// was loaded natively (sent deferred all along), so the
				// cached prefix stands and no miss is expected of it.
				p.toolsChanged = false
				p.expected = slices.DeleteFunc(p.expected, func(s string) bool { return s == p.toolsWhy })
			}
		}
		m.lastWire = resp.Wire
	}
	// Small dips are noise (best-effort caches of OpenAI-compatible servers
	// move in blocks); a real miss loses most of the prefix.
	drop := m.lastCache - u.CacheReadTokens
	if m.haveResp && p.valid && drop >= max(1024, m.lastCache/10) && len(p.expected) == 0 {
		why := "no prefix bytes changed (system, tools and messages are identical); the provider dropped the cache"
		if len(p.changed) > 0 {
			why = strings.Join(p.changed, "; ")
		}
		m.emit(agent.CacheMissUnexpected{Reason: fmt.Sprintf("cache reads fell from %d to %d tokens: %s", m.lastCache, u.CacheReadTokens, why)})
		m.bump(func(s *Stats) { s.UnexpectedCacheMisses++ })
	}
	if p.toolsChanged {
		m.bump(func(s *Stats) {
			s.ToolListMisses++
			s.ToolListMissTokens += u.CacheWriteTokens
		})
	}
	m.lastCache, m.haveResp = u.CacheReadTokens, true
}

// checkPrefix compares the request about to go out with the last one, part
// by part, and leaves the verdict for AfterResponse.
func (m *Manager) checkPrefix(req *llm.Request, msgs []uint64, now time.Time) {
	p := pendingCheck{valid: m.last != nil}
	if m.forced != "" {
		p.expected = append(p.expected, m.forced)
		m.forced = ""
	}
	if m.last == nil {
		m.pending = p
		return
	}
	l := m.last
	if now.Sub(l.at) >= m.opts.CacheTTL {
		p.expected = append(p.expected, "the cache expired while idle")
	}
	if req.Model != l.model {
		p.expected = append(p.expected, "the model changed")
	}
	sys := m.hashSystem(req.System)
	for i := range max(len(sys), len(l.sys)) {
		if i >= len(sys) || i >= len(l.sys) || sys[i] != l.sys[i] {
			p.changed = append(p.changed, fmt.Sprintf("system prompt block %d changed", i+1))
			break
		}
	}
	tl := m.hashTools(req.Tools)
	if added, removed := toolSetDiff(l.tools, tl); len(added)+len(removed) > 0 {
		p.toolsWhy = "the tool list changed (+" + strings.Join(added, ",") + " -" + strings.Join(removed, ",") + ")"
		p.expected = append(p.expected, p.toolsWhy)
		p.toolsChanged = true
	} else {
		for i := range tl {
			if tl[i] != l.tools[i] {
				p.changed = append(p.changed, "definition of tool "+tl[i].name+" changed")
				break
			}
		}
	}
	switch {
	case len(msgs) < len(l.msgs):
		p.expected = append(p.expected, "the history is shorter than the cached prefix (cleared or resumed)")
	default:
		for i := range l.msgs {
			if msgs[i] != l.msgs[i] {
				p.changed = append(p.changed, fmt.Sprintf("message %d of the cached prefix changed outside the context manager", i))
				break
			}
		}
	}
	m.pending = p
}

// wireChanges names the encoded parts of the cached prefix (prev) whose
// bytes differ in cur: a system block, a tool definition, a message.
func wireChanges(prev, cur *llm.WirePrint) []string {
	var out []string
	for i := range min(len(prev.System), len(cur.System)) {
		if prev.System[i] != cur.System[i] {
			out = append(out, fmt.Sprintf("system prompt block %d changed on the wire", i+1))
			break
		}
	}
	if len(prev.Tools) == len(cur.Tools) {
		for i := range cur.Tools {
			if prev.Tools[i] != cur.Tools[i] {
				out = append(out, "encoded definition of tool "+cur.Tools[i].Name+" changed on the wire")
				break
			}
		}
	}
	for i := range min(len(prev.Messages), len(cur.Messages)) {
		if prev.Messages[i] != cur.Messages[i] {
			out = append(out, fmt.Sprintf("message %d of the cached prefix changed on the wire", i))
			break
		}
	}
	return out
}

func toolSetDiff(a, b []toolPrint) (added, removed []string) {
	in := func(l []toolPrint, n string) bool {
		for _, t := range l {
			if t.name == n {
				return true
			}
		}
		return false
	}
	for _, t := range b {
		if !in(a, t.name) {
			added = append(added, t.name)
		}
	}
	for _, t := range a {
		if !in(b, t.name) {
			removed = append(removed, t.name)
		}
	}
	if len(added)+len(removed) == 0 && len(a) != len(b) {
		added = append(added, "(duplicate names)")
	}
	return added, removed
}

func prefixSame(cur, prev []uint64) bool {
	if len(cur) < len(prev) {
		return false
	}
	for i := range prev {
		if cur[i] != prev[i] {
			return false
		}
	}
	return true
}

// hashMessages fingerprints each message. Every field is hashed whole
// (maphash of a long string runs at memory speed) and the field hashes are
// mixed in order, so a change in any byte of any block changes the result.
func (m *Manager) hashMessages(h []llm.Message) []uint64 {
	out := make([]uint64, len(h))
	for i, msg := range h {
		x := mix(0x9e3779b97f4a7c15, maphash.String(m.seed, string(msg.Role)))
		for _, b := range msg.Content {
			x = mix(x, maphash.String(m.seed, string(b.Type)))
			for k, f := range [...]string{b.Text, b.Signature, b.Data, b.MediaType, b.ID, b.Name, b.Content, string(b.Input)} {
				if f == "" {
					x = mix(x, uint64(k))
					continue
				}
				x = mix(x, maphash.String(m.seed, f))
			}
			if b.IsError {
				x = mix(x, 1)
			}
		}
		out[i] = x
	}
	return out
}

// mix folds v into the running hash x (order-sensitive).
func mix(x, v uint64) uint64 {
	x ^= v + 0x9e3779b97f4a7c15 + x<<6 + x>>2
	x *= 0xbf58476d1ce4e5b9
	return x ^ x>>31
}

func (m *Manager) hashSystem(sys []llm.SystemBlock) []uint64 {
	out := make([]uint64, len(sys))
	for i, s := range sys {
		c := "0"
		if s.Cache {
			c = "1"
		}
		out[i] = maphash.String(m.seed, c+s.Text)
	}
	return out
}

func (m *Manager) hashTools(ts []llm.ToolSpec) []toolPrint {
	out := make([]toolPrint, len(ts))
	for i, t := range ts {
		out[i] = toolPrint{t.Name, maphash.String(m.seed, t.Name+"\x00"+t.Description+"\x00"+string(t.InputSchema))}
	}
	return out
}
