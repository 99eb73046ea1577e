// Package compact keeps a long session inside the model's context window
// without wasting the provider's prompt cache. Cheap tiers run before every
// request (shorten old tool results, snip superseded reads, clear old results
// once the cache has gone cold); a model-written summary replaces the older
// history only at a turn boundary, on /compact, or when the provider says the
// prompt is too long. Every compaction is health-checked and undone if it
// broke the history, and every request's prefix is fingerprinted so a cache
// miss nobody caused is reported instead of silently costing money.
package compact

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// Defaults of Options.
const (
	DefaultThreshold  = 0.85
	DefaultKeepRecent = 3
	// DefaultCacheTTL is how long a provider keeps a prompt prefix cached;
	// after it the cache is cold and rewriting the prefix costs nothing extra.
	DefaultCacheTTL = 5 * time.Minute
	// maxReserve bounds the room kept free for the model's answer.
	maxReserve = 20000
)

// Options configures a Manager. Everything but Provider is optional.
type Options struct {
	// Provider and Model write the summaries (Model empty = the request's
	// model). Without a provider, compaction folds the history locally.
	Provider llm.Provider
	Model    string
	// Window overrides the model's context window in tokens (0 = llm.LookupModel);
	// MaxOutput overrides its output limit when a request sets none.
	Window    int
	MaxOutput int
	// Threshold is the share of the window above which a turn starts with an
	// auto-compaction (default 0.85); Auto turns that on.
	Threshold float64
	Auto      bool
	// Emit receives Compacted, CacheMissUnexpected and Notice events; it is
	// never called with an internal lock held.
	Emit func(agent.Event)
	// Now is the clock (tests use a fake one).
	Now func() time.Time
	// Instructions returns the project instructions (AGENTS.md, CLAUDE.md),
	// put back verbatim after every compaction.
	Instructions func() string
	// BeforeCompact, if set, runs before a summary is made (the PreCompact
	// hooks): trigger is "manual" (/compact, with its focus) or "auto".
	BeforeCompact func(ctx context.Context, trigger, focus string)
	// AfterCompact, if set, runs after a summary replaced the history (the
	// SessionStart hooks with source "compact").
	AfterCompact func(ctx context.Context)
	// Todos returns the current todo list as text, put back after compaction.
	Todos func() string
	// Tools finds the tool of a call in the history, whose declarations say
	// which results may be cleared (tools.Refetchable) and which files a
	// call touched (tools.FileToucher); nil means hew's built-in tools.
	Tools func(name string) (tools.Tool, bool)
	// Env is the tool environment; the health probe checks that its working
	// directory and session id survive a compaction. Root also resolves
	// relative paths when deciding which reads supersede others.
	Env *tools.Env
	// Record stores a compaction record in the session file ("compaction").
	Record func(kind string, v any)
	// KeepRecent is how many of the newest tool-result messages tiers 1–3
	// leave alone (default 3).
	KeepRecent int
	// CacheTTL is the idle time after which the cache counts as cold
	// (default 5 minutes).
	CacheTTL time.Duration
}

// Stats is the session's context and cache accounting, for /status.
type Stats struct {
	Requests         int
	InputTokens      int // uncached input tokens
	CacheReadTokens  int
	CacheWriteTokens int
	OutputTokens     int
	// HitRate is cache reads over all input tokens (0 when nothing was sent).
	HitRate float64
	// ContextTokens is the input size of the last request; Window the
	// window it was measured against.
	ContextTokens int
	Window        int
	// Compactions counts history summaries (tier 4); TierActions counts
	// actions per tier (index = tier number).
	Compactions           int
	TierActions           [5]int
	UnexpectedCacheMisses int
	// ToolListMisses counts requests whose tool list changed (a deferred
	// tool activated, MCP tools came or went): the tools lead the cached
	// prefix, so each costs one whole cache miss; ToolListMissTokens is the
	// cache write those requests paid. /status shows them.
	ToolListMisses     int
	ToolListMissTokens int
}

// CompactionRecord is what a compaction stores in the session file.
type CompactionRecord struct {
	Tier         int    `json:"tier"`
	Reason       string `json:"reason"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Summary      string `json:"summary"`
	Folded       int    `json:"folded_messages"`
	Kept         int    `json:"kept_messages"`
}

// Manager implements agent.ContextManager.
type Manager struct {
	opts Options
	seed maphash.Seed

	mu    sync.Mutex // the loop's state; the loop calls one method at a time
	queue []agent.Event
	last  *sent
	// ratio scales estimates to what the provider reported (≥ 1: the
	// estimate is never trusted to be an overcount).
	ratio      float64
	reported   int // tokens of the last request plus its answer, as reported
	reportedOK bool
	lastCache  int
	haveResp   bool
	// lastWire is the adapter's fingerprint of the last request sent, if any.
	lastWire  *llm.WirePrint
	pending   pendingCheck
	forced    string // why the prefix was rewritten on purpose since the last request
	root, sid string // what the probe expects to stay intact
	tokCache  map[uint64]int
	callCache map[string]call
	fixedKey  uint64
	fixedVal  int

	smu   sync.Mutex // Stats
	stats Stats
}

var _ agent.ContextManager = (*Manager)(nil)

// New returns a Manager.
func New(o Options) *Manager {
	if o.Threshold <= 0 || o.Threshold >= 1 {
		o.Threshold = DefaultThreshold
	}
	if o.KeepRecent <= 0 {
		o.KeepRecent = DefaultKeepRecent
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Manager{opts: o, seed: maphash.MakeSeed(), ratio: 1}
}

// builtins is the registry of hew's built-in tools, for a Manager given no
// Tools; it is built on first use.
var builtins = sync.OnceValue(func() *tools.Registry {
	r := tools.NewRegistry()
	tools.RegisterBuiltins(r)
	return r
})

// tool finds the tool named name (Options.Tools).
func (m *Manager) tool(name string) (tools.Tool, bool) {
	if m.opts.Tools != nil {
		return m.opts.Tools(name)
	}
	return builtins().Get(name)
}

// Stats returns the session's accounting so far.
func (m *Manager) Stats() Stats {
	m.smu.Lock()
	defer m.smu.Unlock()
	s := m.stats
	if all := s.InputTokens + s.CacheReadTokens + s.CacheWriteTokens; all > 0 {
		s.HitRate = float64(s.CacheReadTokens) / float64(all)
	}
	return s
}

// SetProvider changes the provider and model that write summaries, for
// /model switches (model empty = each request's model).
func (m *Manager) SetProvider(p llm.Provider, model string) {
	m.lock()
	defer m.unlock()
	m.opts.Provider, m.opts.Model = p, model
}

// FormatTodos renders a todo list the way compaction puts it back, for the
// Todos option: one "- [status] content" line per item.
func FormatTodos(todos []tools.Todo) string {
	var sb strings.Builder
	for _, t := range todos {
		fmt.Fprintf(&sb, "- [%s] %s\n", t.Status, t.Content)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// Reset forgets the last request (after /clear or a resume), so the next
// cache drop is not reported as unexpected.
func (m *Manager) Reset() {
	m.lock()
	defer m.unlock()
	m.last, m.reportedOK, m.haveResp, m.lastCache, m.lastWire = nil, false, false, 0, nil
	m.root, m.sid = "", "" // a new conversation may have a new session id
	m.forced = "history reset"
}

func (m *Manager) lock() { m.mu.Lock() }

// unlock releases the state and then delivers queued events, so an event
// subscriber may call Stats or anything else without deadlocking.
func (m *Manager) unlock() {
	evs := m.queue
	m.queue = nil
	m.mu.Unlock()
	if m.opts.Emit == nil {
		return
	}
	for _, e := range evs {
		m.opts.Emit(e)
	}
}

func (m *Manager) emit(e agent.Event) { m.queue = append(m.queue, e) }

func (m *Manager) bump(f func(s *Stats)) {
	m.smu.Lock()
	f(&m.stats)
	m.smu.Unlock()
}

// limits is the token budget of one request.
type limits struct {
	window int // the model's context window
	maxOut int // the answer's output limit
	limit  int // the most input that still leaves room for the answer
	autoAt int // above this a turn starts with an auto-compaction
}

func (m *Manager) limitsFor(req *llm.Request) limits {
	info := llm.LookupModel(req.Model)
	l := limits{window: info.ContextWindow, maxOut: info.MaxOutput}
	if m.opts.Window > 0 {
		l.window = m.opts.Window
	}
	if m.opts.MaxOutput > 0 {
		l.maxOut = m.opts.MaxOutput
	}
	if req.MaxTokens > 0 {
		l.maxOut = req.MaxTokens
	}
	reserve := min(l.maxOut, maxReserve, l.window/4)
	l.limit = l.window - reserve
	l.autoAt = min(int(m.opts.Threshold*float64(l.window)), l.limit*95/100)
	return l
}

// usage is the token count of req's input: the provider's last report plus
// an estimate of the unsent tail when the reported prefix is still intact,
// never less than the scaled estimate of the whole request.
func (m *Manager) usage(req *llm.Request, hashes []uint64, toks []int) int {
	t := int(float64(m.fixed(req)+sum(toks)) * m.ratio)
	if m.reportedOK && m.last != nil && len(hashes) > len(m.last.msgs) && prefixSame(hashes, m.last.msgs) {
		tail := sum(toks[len(m.last.msgs)+1:])
		t = max(t, m.reported+int(float64(tail)*m.ratio))
	}
	return t
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func (m *Manager) scaled(req *llm.Request, msgs []llm.Message) int {
	return int(float64(m.fixed(req)+EstimateMessages(msgs)) * m.ratio)
}

// fixed estimates the system prompt and tool list, recomputed only when
// their bytes change.
func (m *Manager) fixed(req *llm.Request) int {
	var h maphash.Hash
	h.SetSeed(m.seed)
	for _, s := range req.System {
		h.WriteString(s.Text)
		h.WriteByte(0)
	}
	for _, t := range req.Tools {
		h.WriteString(t.Name)
		h.WriteString(t.Description)
		h.Write(t.InputSchema)
		h.WriteByte(0)
	}
	if k := h.Sum64(); k != m.fixedKey || m.fixedVal == 0 {
		m.fixedKey, m.fixedVal = k, estimateFixed(req)
	}
	return m.fixedVal
}

// messageTokens estimates every message of h, reusing the estimates of
// messages already seen in the previous request (found by content hash), so
// a long history is not re-scanned on every round trip.
func (m *Manager) messageTokens(h []llm.Message, hashes []uint64) []int {
	out := make([]int, len(h))
	for i := range h {
		if t, ok := m.tokCache[hashes[i]]; ok {
			out[i] = t
			continue
		}
		out[i] = EstimateMessage(h[i])
	}
	return out
}

// remember keeps the estimates of the history just sent, and only those.
func (m *Manager) remember(hashes []uint64, toks []int) {
	if m.tokCache == nil {
		m.tokCache = make(map[uint64]int, len(hashes))
	}
	clear(m.tokCache)
	for i, h := range hashes {
		m.tokCache[h] = toks[i]
	}
}

// Tokens returns the current estimate of req's input tokens and the window.
func (m *Manager) Tokens(req *llm.Request) (tokens, window int) {
	m.lock()
	defer m.unlock()
	hs := m.hashMessages(req.Messages)
	return m.usage(req, hs, m.messageTokens(req.Messages, hs)), m.limitsFor(req).window
}

// AtTurnStart auto-compacts (tier 4) when the history is above the
// threshold. It runs only at a turn boundary, where no tool call is open.
func (m *Manager) AtTurnStart(ctx context.Context, req *llm.Request) []llm.Message {
	m.lock()
	defer m.unlock()
	lim := m.limitsFor(req)
	hs := m.hashMessages(req.Messages)
	before := m.usage(req, hs, m.messageTokens(req.Messages, hs))
	if !m.opts.Auto || before <= lim.autoAt || len(req.Messages) < 2 {
		return req.Messages
	}
	reason := fmt.Sprintf("auto: context at %d%% of the window", before*100/lim.window)
	if m.opts.BeforeCompact != nil {
		m.opts.BeforeCompact(ctx, "auto", "")
	}
	h, err := m.fold(ctx, req, req.Messages, lim, foldOpts{reason: reason, keep: lim.limit * 3 / 10, model: true, fallback: true}, before)
	if err != nil {
		if !errors.Is(err, errNothingToFold) && ctx.Err() == nil {
			m.emit(agent.Notice{Level: "warn", Text: "auto-compact skipped: " + err.Error()})
		}
		return req.Messages
	}
	if m.opts.AfterCompact != nil {
		m.opts.AfterCompact(ctx)
	}
	return h
}

// Compact summarises the history on request (/compact [focus]).
func (m *Manager) Compact(ctx context.Context, req *llm.Request, focus string) ([]llm.Message, error) {
	m.lock()
	defer m.unlock()
	lim := m.limitsFor(req)
	hs := m.hashMessages(req.Messages)
	before := m.usage(req, hs, m.messageTokens(req.Messages, hs))
	reason := "requested"
	if focus != "" {
		reason += ", focus: " + focus
	}
	if m.opts.BeforeCompact != nil {
		m.opts.BeforeCompact(ctx, "manual", focus)
	}
	h, err := m.fold(ctx, req, req.Messages, lim, foldOpts{reason: reason, focus: focus, keep: lim.limit * 3 / 10, model: true}, before)
	if err != nil {
		return req.Messages, err
	}
	if m.opts.AfterCompact != nil {
		m.opts.AfterCompact(ctx)
	}
	return h, nil
}

// Recover answers a prompt-too-long failure with a reactive compaction and
// reports whether one retry with the returned history makes sense.
func (m *Manager) Recover(ctx context.Context, req *llm.Request, err error) ([]llm.Message, bool) {
	var ae *llm.APIError
	if err == nil || !errors.As(err, &ae) || !ae.PromptTooLong() {
		return req.Messages, false
	}
	m.lock()
	defer m.unlock()
	// The provider counted more than the estimate said: trust it less.
	m.ratio = min(m.ratio*1.25, 3)
	lim := m.limitsFor(req)
	est := m.scaled(req, req.Messages)
	before := est
	// Keep far less than what was refused, whatever the window claims.
	keep := min(lim.limit/5, est/4)
	h, ferr := m.fold(ctx, req, req.Messages, lim, foldOpts{reason: "the provider said the prompt is too long", keep: keep, model: true, fallback: true}, before)
	if ferr == nil {
		return h, true
	}
	if ctx.Err() != nil {
		return req.Messages, false
	}
	// Nothing to fold (one giant turn): squeeze the tool results instead.
	e := newEditor(req.Messages, nil)
	calls := m.indexCalls(req.Messages)
	n := shortenResults(e, calls, 0, len(e.msgs), budgetHard, true)
	n += shortenResults(e, calls, 0, len(e.msgs), budgetTight, false)
	if n == 0 {
		return req.Messages, false
	}
	m.forced = "reactive compaction"
	m.emit(agent.Compacted{Tier: 1, TokensBefore: before, TokensAfter: m.scaled(req, e.msgs), Reason: "prompt too long: all tool results shortened"})
	m.bump(func(s *Stats) { s.TierActions[1]++ })
	return e.msgs, true
}

func (m *Manager) rootPath() string {
	if m.opts.Env != nil {
		return m.opts.Env.Root
	}
	return ""
}
