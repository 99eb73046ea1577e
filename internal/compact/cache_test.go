package compact_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
)

// cacheSim plays a provider's prompt cache: a request reads from the cache
// the longest prefix it shares with the previous request (system and tools
// first, then whole messages), as long as that was less than ttl ago.
type cacheSim struct {
	prevFixed string
	prevMsgs  []llm.Message
	prevAt    time.Time
	now       func() time.Time
}

func (c *cacheSim) usage(req *llm.Request) llm.Usage {
	fixed, _ := json.Marshal(struct {
		S []llm.SystemBlock
		T []llm.ToolSpec
	}{req.System, req.Tools})
	total := compact.EstimateRequest(req)
	read := 0
	if string(fixed) == c.prevFixed && c.now().Sub(c.prevAt) < 5*time.Minute {
		n := 0
		for n < len(c.prevMsgs) && n < len(req.Messages) && sameMessage(req.Messages[n], c.prevMsgs[n]) {
			n++
		}
		read = total - compact.EstimateMessages(req.Messages[n:])
	}
	c.prevFixed, c.prevMsgs, c.prevAt = string(fixed), slices.Clone(req.Messages), c.now()
	return llm.Usage{InputTokens: 50, CacheReadTokens: read, CacheWriteTokens: max(total-read-50, 0), OutputTokens: 40}
}

func sameMessage(a, b llm.Message) bool {
	if a.Role != b.Role || len(a.Content) != len(b.Content) {
		return false
	}
	for i, x := range a.Content {
		y := b.Content[i]
		if x.Type != y.Type || x.Text != y.Text || x.ID != y.ID || x.Name != y.Name || x.Content != y.Content ||
			string(x.Input) != string(y.Input) || x.IsError != y.IsError || x.Data != y.Data || x.Signature != y.Signature {
			return false
		}
	}
	return true
}

// driver is a minimal agent loop calling the ContextManager at the same
// points as internal/agent: AtTurnStart once per user message, then
// BeforeRequest / AfterResponse around every model request, Recover on a
// prompt-too-long failure.
type driver struct {
	m       *compact.Manager
	p       llm.Provider
	hist    []llm.Message
	base    func(h []llm.Message) *llm.Request
	run     func(b llm.Block) string // tool executor
	onReq   func(req *llm.Request)   // sees every main request as sent
	clk     *clock
	perTrip time.Duration
	trips   int
	// spent is the time spent inside the manager's methods.
	spent time.Duration
}

// timed runs f and adds its duration to d.spent.
func (d *driver) timed(f func()) {
	t0 := time.Now()
	f()
	d.spent += time.Since(t0)
}

func (d *driver) turn(ctx context.Context, prompt string, maxTrips int) error {
	d.hist = append(d.hist, llm.UserText(prompt))
	d.timed(func() { d.hist = d.m.AtTurnStart(ctx, d.base(d.hist)) })
	retried := false
	for range maxTrips {
		req := d.base(d.hist)
		d.timed(func() { d.hist = d.m.BeforeRequest(req) })
		req.Messages = d.hist
		if d.onReq != nil {
			d.onReq(req)
		}
		d.trips++
		resp, err := d.p.Stream(ctx, req, func(llm.Event) {})
		if err != nil {
			if h, ok := d.m.Recover(ctx, req, err); ok && !retried {
				d.hist, retried = h, true
				continue
			}
			return err
		}
		retried = false
		d.timed(func() { d.m.AfterResponse(req, resp) })
		if d.clk != nil {
			d.clk.advance(d.perTrip)
		}
		d.hist = append(d.hist, resp.Message)
		uses := resp.Message.ToolUses()
		if len(uses) == 0 {
			return nil
		}
		res := llm.Message{Role: llm.RoleUser}
		for _, u := range uses {
			res.Content = append(res.Content, llm.Block{Type: llm.BlockToolResult, ID: u.ID, Content: d.run(u)})
		}
		d.hist = append(d.hist, res)
	}
	return nil
}

func toolAnswer(id, name, input string) *llm.Response {
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		{Type: llm.BlockText, Text: "Let me look."},
		{Type: llm.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}}}, StopReason: llm.StopToolUse}
}

func textAnswer(s string) *llm.Response {
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}, StopReason: llm.StopEndTurn}
}

// Twenty idle-ish turns (well under the cache TTL apart): the system and
// tool bytes never change and every request's messages extend the previous
// request's, so the provider can serve the whole prefix from its cache.
func TestTwentyTurnsKeepThePrefix(t *testing.T) {
	clk := newClock()
	ev := &events{}
	sim := &cacheSim{now: clk.now}
	n := 0
	p := &fakeProvider{main: func(req *llm.Request) (*llm.Response, error) {
		n++
		last := req.Messages[len(req.Messages)-1]
		var resp *llm.Response
		if hasResult(last) {
			resp = textAnswer("Done with that file.")
		} else {
			resp = toolAnswer(fmt.Sprintf("call_%d", n), "read_file", fmt.Sprintf(`{"file_path":"pkg/f%d.go"}`, n%7))
		}
		resp.Usage = sim.usage(req)
		return resp, nil
	}}
	m := newManager(compact.Options{Provider: p, Auto: true}, clk, ev)
	var prevSys, prevTools string
	var prevMsgs []llm.Message
	d := &driver{m: m, p: p, base: baseRequest, clk: clk, perTrip: 40 * time.Second,
		run: func(b llm.Block) string { return "package pkg\n" + ascii(4000) },
		onReq: func(req *llm.Request) {
			sys, tools := mustJSON(t, req.System), mustJSON(t, req.Tools)
			if prevSys != "" && (sys != prevSys || tools != prevTools) {
				t.Fatalf("request %d: system or tool bytes changed", n+1)
			}
			if prevMsgs != nil && (len(req.Messages) <= len(prevMsgs) || mustJSON(t, req.Messages[:len(prevMsgs)]) != mustJSON(t, prevMsgs)) {
				t.Fatalf("request %d does not extend the previous request's messages", n+1)
			}
			prevSys, prevTools, prevMsgs = sys, tools, clone(req.Messages)
		}}
	for i := range 20 {
		if err := d.turn(context.Background(), fmt.Sprintf("turn %d: look at the next file", i), 10); err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Duration(30+i*5) * time.Second) // the user reads and types
	}
	if d.trips != 40 {
		t.Fatalf("round trips = %d", d.trips)
	}
	if ms := ev.misses(); len(ms) != 0 {
		t.Fatalf("unexpected cache misses: %+v", ms)
	}
	s := m.Stats()
	if s.HitRate < 0.8 || s.Requests != 40 {
		t.Fatalf("stats = %+v, want hit rate ≥ 0.8", s)
	}
}

func hasResult(m llm.Message) bool {
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return true
		}
	}
	return false
}

// A cache-read drop is reported with the part whose bytes changed, unless
// the change was one the manager expects.
func TestCacheMissUnexpected(t *testing.T) {
	tests := []struct {
		name   string
		change func(req *llm.Request, clk *clock, m *compact.Manager)
		want   string // substring of the reason; "" = no event
	}{
		{"nothing changed: provider dropped it", func(*llm.Request, *clock, *compact.Manager) {}, "no prefix bytes changed"},
		{"system block edited", func(r *llm.Request, _ *clock, _ *compact.Manager) { r.System[1].Text += " (edited)" }, "system prompt block 2 changed"},
		{"tool schema edited", func(r *llm.Request, _ *clock, _ *compact.Manager) {
			r.Tools[1].Description = "Run a shell command."
		}, "definition of tool run_shell changed"},
		{"history rewritten by someone else", func(r *llm.Request, _ *clock, _ *compact.Manager) {
			r.Messages[0] = llm.UserText("a different first prompt")
		}, "message 0 of the cached prefix changed outside"},
		{"tool added", func(r *llm.Request, _ *clock, _ *compact.Manager) {
			r.Tools = append(r.Tools, llm.ToolSpec{Name: "edit_file", InputSchema: json.RawMessage(`{}`)})
		}, ""},
		{"model switched", func(r *llm.Request, _ *clock, _ *compact.Manager) { r.Model = "claude-sonnet-4-5" }, ""},
		{"idle past the TTL", func(_ *llm.Request, c *clock, _ *compact.Manager) { c.advance(6 * time.Minute) }, ""},
		{"history cleared", func(r *llm.Request, _ *clock, m *compact.Manager) {
			r.Messages = []llm.Message{llm.UserText("fresh start")}
			m.Reset()
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			ev := &events{}
			m := newManager(compact.Options{}, clk, ev)
			b := &hb{}
			b.user("task").read("a.go", ascii(2000))
			req := baseRequest(b.h)
			b.h = m.BeforeRequest(req)
			m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheReadTokens: 3000}})
			b.say("ok").user("next")
			clk.advance(20 * time.Second)
			req = baseRequest(b.h)
			tt.change(req, clk, m)
			req.Messages = m.BeforeRequest(req)
			m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 3000, CacheReadTokens: 400}})
			ms := ev.misses()
			if tt.want == "" {
				if len(ms) != 0 {
					t.Fatalf("unexpected event: %+v", ms)
				}
				return
			}
			if len(ms) != 1 || !strings.Contains(ms[0].Reason, tt.want) || !strings.Contains(ms[0].Reason, "from 3000 to 400") {
				t.Fatalf("events = %+v, want one naming %q", ms, tt.want)
			}
			if m.Stats().UnexpectedCacheMisses != 1 {
				t.Fatal("miss not counted")
			}
		})
	}
}

// Activating a deferred tool changes the tool list, which leads the cached
// prefix: the miss is expected (no event) but counted with its cost, for
// /status (issue 12.13).
func TestToolListChangeCountedAsOneMiss(t *testing.T) {
	m := newManager(compact.Options{}, newClock(), nil)
	b := &hb{}
	b.user("task").read("a.go", ascii(2000))
	req := baseRequest(b.h)
	b.h = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheReadTokens: 3000}})
	b.say("ok").user("next")
	req = baseRequest(b.h)
	req.Tools = append(req.Tools, llm.ToolSpec{Name: "web_fetch", InputSchema: json.RawMessage(`{}`)})
	req.Messages = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheWriteTokens: 3400}})
	req = baseRequest(b.h)
	req.Tools = append(req.Tools, llm.ToolSpec{Name: "web_fetch", InputSchema: json.RawMessage(`{}`)})
	req.Messages = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheReadTokens: 3400}})
	if s := m.Stats(); s.ToolListMisses != 1 || s.ToolListMissTokens != 3400 || s.UnexpectedCacheMisses != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestStatsHitRate(t *testing.T) {
	m := newManager(compact.Options{}, newClock(), nil)
	if s := m.Stats(); s.HitRate != 0 {
		t.Fatalf("hit rate before any request = %v", s.HitRate)
	}
	req := baseRequest([]llm.Message{llm.UserText("hi")})
	req.Messages = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 100, CacheReadTokens: 600, CacheWriteTokens: 300}})
	s := m.Stats()
	if s.HitRate != 0.6 || s.Requests != 1 || s.ContextTokens != 1000 || s.Window != 200000 {
		t.Fatalf("stats = %+v", s)
	}
}

// A small dip in cache reads is noise, not a miss.
func TestCacheSmallDipIsNoise(t *testing.T) {
	clk := newClock()
	ev := &events{}
	m := newManager(compact.Options{}, clk, ev)
	b := &hb{}
	b.user("task").read("a.go", ascii(2000))
	req := baseRequest(b.h)
	b.h = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheReadTokens: 30000}})
	b.say("ok").user("next")
	req = baseRequest(b.h)
	req.Messages = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 900, CacheReadTokens: 29100}})
	if ms := ev.misses(); len(ms) != 0 {
		t.Fatalf("a 900-token dip reported: %+v", ms)
	}
}

// With the adapter's wire fingerprints, cache_miss_unexpected names the part
// whose encoded bytes changed, not what the neutral history says (issue 12.12).
func TestCacheMissNamesWireChange(t *testing.T) {
	w1 := &llm.WirePrint{System: []uint64{1, 2}, Tools: []llm.ToolPrint{{Name: "read_file", Hash: 7}}, Messages: []uint64{10, 11}}
	tests := []struct {
		name   string
		wire   *llm.WirePrint
		change func(*llm.Request)
		want   string
	}{
		{"message bytes changed on the wire only", &llm.WirePrint{System: []uint64{1, 2}, Tools: w1.Tools, Messages: []uint64{99, 11, 12}}, func(*llm.Request) {}, "message 0 of the cached prefix changed on the wire"},
		{"tool encoding changed", &llm.WirePrint{System: []uint64{1, 2}, Tools: []llm.ToolPrint{{Name: "read_file", Hash: 8}}, Messages: []uint64{10, 11, 12}}, func(*llm.Request) {}, "encoded definition of tool read_file changed on the wire"},
		{"neutral change that encodes the same", &llm.WirePrint{System: []uint64{1, 2}, Tools: w1.Tools, Messages: []uint64{10, 11, 12}}, func(r *llm.Request) {
			r.Messages[0] = llm.UserText("a different first prompt")
		}, "no prefix bytes changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := &events{}
			m := newManager(compact.Options{}, newClock(), ev)
			b := &hb{}
			b.user("task").read("a.go", ascii(2000))
			req := baseRequest(b.h)
			b.h = m.BeforeRequest(req)
			m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheReadTokens: 3000}, Wire: w1})
			b.say("ok").user("next")
			req = baseRequest(b.h)
			tt.change(req)
			req.Messages = m.BeforeRequest(req)
			m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 3000, CacheReadTokens: 400}, Wire: tt.wire})
			ms := ev.misses()
			if len(ms) != 1 || !strings.Contains(ms[0].Reason, tt.want) {
				t.Fatalf("events = %+v, want one naming %q", ms, tt.want)
			}
		})
	}
}

// A tool loaded natively (sent deferred from the first request) grows the
// neutral tool list but not the wire's: no tool-list miss is counted, and
// a cache drop after it is unexpected (issue 12.13).
func TestNativeLoadIsNoToolListMiss(t *testing.T) {
	ev := &events{}
	m := newManager(compact.Options{}, newClock(), ev)
	wire := &llm.WirePrint{Tools: []llm.ToolPrint{{Name: "read_file", Hash: 1}, {Name: "web_fetch", Hash: 2}}}
	b := &hb{}
	b.user("task").read("a.go", ascii(2000))
	req := baseRequest(b.h)
	b.h = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheReadTokens: 3000}, Wire: wire})
	b.say("ok").user("next")
	req = baseRequest(b.h)
	req.Tools = append(req.Tools, llm.ToolSpec{Name: "web_fetch", InputSchema: json.RawMessage(`{}`)})
	req.Messages = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheReadTokens: 3400}, Wire: wire})
	if s := m.Stats(); s.ToolListMisses != 0 || s.UnexpectedCacheMisses != 0 {
		t.Fatalf("native load counted as a tool-list miss: %+v", s)
	}
	// The same growth that also changes the wire is a miss, as before.
	req = baseRequest(b.h)
	req.Tools = append(req.Tools, llm.ToolSpec{Name: "web_fetch", InputSchema: json.RawMessage(`{}`)}, llm.ToolSpec{Name: "mcp_x", InputSchema: json.RawMessage(`{}`)})
	req.Messages = m.BeforeRequest(req)
	grown := &llm.WirePrint{Tools: append(slices.Clone(wire.Tools), llm.ToolPrint{Name: "mcp_x", Hash: 3})}
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 10, CacheWriteTokens: 3500}, Wire: grown})
	if s := m.Stats(); s.ToolListMisses != 1 || s.UnexpectedCacheMisses != 0 {
		t.Fatalf("a wire tool-list change: %+v", s)
	}
}
