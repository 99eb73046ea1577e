package compact

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// Markers that replace tool results. They start with text no tool produces
// so a tier never shortens its own output again.
const (
	snipMarkerPrefix  = "[content snipped"
	clearMarkerPrefix = "[old tool result cleared"
)

// Result sizes (bytes) of the budget tier: above 50% of the window older
// results keep budgetSoft bytes, above 70% budgetHard; emergency steps go
// further when a request would not fit at all.
const (
	budgetSoft   = 8000
	budgetHard   = 2000
	budgetTight  = 500
	microMinimum = 200 // results this small are not worth clearing
)

// snipMarker is what a superseded or re-readable result becomes.
func snipMarker(what string) string {
	return "[content snipped — re-read " + what + " if needed]"
}

// clearMarker is what microcompact leaves of an old result.
func clearMarker(tool string) string {
	return "[old tool result cleared to save context — run " + tool + " again if needed]"
}

func isMarker(s string) bool {
	return strings.HasPrefix(s, snipMarkerPrefix) || strings.HasPrefix(s, clearMarkerPrefix)
}

// call is what the tiers need to know about a tool_use block.
type call struct {
	name string
	// what names the re-readable target (path or pattern); empty when the
	// tool's result cannot be fetched again cheaply.
	what string
	// readKey identifies a read_file call's path and range; full reads have
	// an empty range part.
	readPath, readRange string
}

// indexCalls maps tool_use ids to what the tiers need to know about them.
// The map lives from one request to the next (ids are unique), so each
// call's input is parsed once; it is rebuilt when compaction has left it
// holding many calls no longer in the history.
func (m *Manager) indexCalls(h []llm.Message) map[string]call {
	if m.callCache == nil {
		m.callCache = map[string]call{}
	}
	n := 0
	for _, msg := range h {
		if msg.Role != llm.RoleAssistant {
			continue
		}
		for _, b := range msg.Content {
			if b.Type != llm.BlockToolUse {
				continue
			}
			n++
			if c, ok := m.callCache[b.ID]; !ok || c.name != b.Name {
				m.callCache[b.ID] = describeCall(b, m.rootPath(), m.tool)
			}
		}
	}
	if len(m.callCache) > 2*n+256 {
		old := m.callCache
		m.callCache = make(map[string]call, n)
		for _, msg := range h {
			for _, b := range msg.ToolUses() {
				m.callCache[b.ID] = old[b.ID]
			}
		}
	}
	return m.callCache
}

// describeCall asks the tool of a call what its result holds: a
// tools.Refetchable tool's result can be fetched again, so dropping it
// loses nothing that a call cannot restore.
func describeCall(b llm.Block, root string, tool func(string) (tools.Tool, bool)) call {
	c := call{name: b.Name}
	t, ok := tool(b.Name)
	if !ok {
		return c
	}
	r, ok := t.(tools.Refetchable)
	if !ok {
		return c
	}
	f := r.Refetch(b.Input)
	c.what = f.What
	if f.File != "" {
		c.readPath = normPath(f.File, root)
		c.readRange = f.Range
	}
	return c
}

func normPath(p, root string) string {
	if root != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
		p = filepath.Join(root, p)
	}
	return filepath.Clean(p)
}

// editor rewrites a history copy-on-write: the caller's messages and block
// slices are never modified, and per-message token estimates stay current.
type editor struct {
	msgs  []llm.Message
	owned []bool
	toks  []int
	// low is the lowest message index changed (len(msgs) when none).
	low int
}

// newEditor starts an edit of h; toks are the estimates of its messages
// (nil = compute them).
func newEditor(h []llm.Message, toks []int) *editor {
	if toks == nil {
		toks = make([]int, len(h))
		for i, m := range h {
			toks[i] = EstimateMessage(m)
		}
	}
	return &editor{msgs: slices.Clone(h), owned: make([]bool, len(h)), toks: slices.Clone(toks), low: len(h)}
}

func (e *editor) tokens() int {
	n := 0
	for _, t := range e.toks {
		n += t
	}
	return n
}

// setResult replaces the content of tool_result block j of message i.
func (e *editor) setResult(i, j int, content string) {
	if !e.owned[i] {
		e.msgs[i].Content = slices.Clone(e.msgs[i].Content)
		e.owned[i] = true
	}
	e.msgs[i].Content[j].Content = content
	e.toks[i] = EstimateMessage(e.msgs[i])
	e.low = min(e.low, i)
}

// results calls fn for every tool_result block in messages [from, to).
func (e *editor) results(from, to int, fn func(i, j int, b llm.Block)) {
	to = min(to, len(e.msgs))
	for i := max(from, 0); i < to; i++ {
		m := e.msgs[i]
		if m.Role != llm.RoleUser {
			continue
		}
		for j, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				fn(i, j, b)
			}
		}
	}
}

func hasToolResults(m llm.Message) bool {
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return true
		}
	}
	return false
}

// keepBoundary returns the index of the oldest of the keep newest messages
// that carry tool results; results from there on are left alone by tiers 1–3.
func keepBoundary(h []llm.Message, keep int) int {
	n := 0
	for i := len(h) - 1; i >= 0; i-- {
		if hasToolResults(h[i]) {
			n++
			if n >= keep {
				return i
			}
		}
	}
	return 0
}

// snipSuperseded (tier 2) replaces read_file results that a later successful
// read of the same file (whole, or the same range) made redundant. Only
// messages from index from on are touched.
func snipSuperseded(e *editor, calls map[string]call, from int) int {
	type pos struct{ full, same map[string]int }
	last := pos{map[string]int{}, map[string]int{}}
	ord := 0
	order := map[string]int{}
	e.results(0, len(e.msgs), func(i, j int, b llm.Block) {
		ord++
		c := calls[b.ID]
		if c.readPath == "" || b.IsError || isMarker(b.Content) {
			return
		}
		order[b.ID] = ord
		if c.readRange == "" {
			last.full[c.readPath] = ord
		}
		last.same[c.readPath+"\x00"+c.readRange] = ord
	})
	n := 0
	e.results(from, len(e.msgs), func(i, j int, b llm.Block) {
		c := calls[b.ID]
		at, ok := order[b.ID]
		if !ok {
			return
		}
		if last.full[c.readPath] > at || last.same[c.readPath+"\x00"+c.readRange] > at {
			if m := snipMarker(c.what); len(b.Content) > len(m) {
				e.setResult(i, j, m)
				n++
			}
		}
	})
	return n
}

// shortenResults (tier 1) cuts tool results in messages [from, to) to max
// bytes; with snip set, re-readable results are replaced by a snip marker
// instead (tier 2 on pressure). It returns how many results changed.
func shortenResults(e *editor, calls map[string]call, from, to, max int, snip bool) int {
	n := 0
	e.results(from, to, func(i, j int, b llm.Block) {
		if isMarker(b.Content) {
			return
		}
		c := calls[b.ID]
		if snip && c.what != "" && !b.IsError {
			if m := snipMarker(c.what); len(b.Content) > len(m) {
				e.setResult(i, j, m)
				n++
			}
			return
		}
		if len(b.Content) > max {
			e.setResult(i, j, shorten(b.Content, max))
			n++
		}
	})
	return n
}

// clearResults (tier 3, and the last emergency step) replaces every result
// in [from, to) bigger than floor bytes by a short marker, whatever its tool.
func clearResults(e *editor, calls map[string]call, from, to, floor int) int {
	n := 0
	e.results(from, to, func(i, j int, b llm.Block) {
		if len(b.Content) <= floor || isMarker(b.Content) {
			return
		}
		name := calls[b.ID].name
		if name == "" {
			name = "the tool"
		}
		e.setResult(i, j, clearMarker(name))
		n++
	})
	return n
}

// shorten keeps the head and tail of s within max bytes and says how much
// of the middle was cut, on UTF-8 boundaries.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const slack = 80 // room for the note
	room := max - slack
	if room < 32 {
		room = 32
	}
	head := room * 2 / 3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tailStart := len(s) - (room - head)
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	note := fmt.Sprintf("\n[… %d of %d bytes cut to fit the context window …]\n", tailStart-head, len(s))
	return s[:head] + note + s[tailStart:]
}
