package compact_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

func TestEstimateText(t *testing.T) {
	tests := []struct {
		name     string
		s        string
		min, max int
	}{
		{"empty", "", 0, 0},
		{"ascii 400 chars", ascii(400), 100, 100},
		{"chinese counts one per character", strings.Repeat("上下文压缩", 200), 1000, 1000},
		{"japanese kana", strings.Repeat("こんにちは", 20), 100, 100},
		{"korean hangul", strings.Repeat("안녕하세요", 20), 100, 100},
		{"full-width punctuation", strings.Repeat("，。！", 10), 30, 30},
		{"mixed code and comment", "x := 1 // 变量", 5, 5},
		{"cyrillic about two per token", strings.Repeat("привет", 10), 30, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compact.EstimateText(tt.s)
			if got < tt.min || got > tt.max {
				t.Fatalf("EstimateText = %d, want %d..%d", got, tt.min, tt.max)
			}
		})
	}
	// A length/4 rule would count 3000 bytes of Chinese as 750 tokens.
	zh := strings.Repeat("中", 1000)
	if got := compact.EstimateText(zh); got < len(zh)/3 {
		t.Fatalf("Chinese undercounted: %d tokens for %d characters", got, 1000)
	}
}

// tier 2: a file read again supersedes its older reads, whole or same range.
func TestSnipSupersededReads(t *testing.T) {
	b := &hb{}
	b.user("fix a.go").
		read("a.go", "package a // v1\n"+ascii(3000)).
		call("edit_file", `{"file_path":"a.go","old_string":"v1","new_string":"v2"}`, "edited a.go").
		read("./a.go", "package a // v2\n"+ascii(3000)).
		read("b.go", "package b\n"+ascii(3000)).
		call("read_file", `{"file_path":"c.go","offset":10,"limit":5}`, "partial c"+ascii(500)).
		read("c.go", "whole c"+ascii(3000)).
		read("d.go", "d v1"+ascii(3000)).
		call("read_file", `{"file_path":"d.go","offset":1,"limit":2}`, "partial d, does not supersede"+ascii(500))
	orig := clone(b.h)
	ev := &events{}
	m := newManager(compact.Options{}, newClock(), ev)
	out := m.BeforeRequest(baseRequest(b.h))
	if !reflect.DeepEqual(orig, b.h) {
		t.Fatal("BeforeRequest modified the caller's history")
	}
	got := results(out)
	want := []string{
		"[content snipped — re-read a.go if needed]",
		"edited a.go",
		"package a // v2\n" + ascii(3000),
		"package b\n" + ascii(3000),
		"[content snipped — re-read c.go if needed]",
		"whole c" + ascii(3000),
		"d v1" + ascii(3000),
		"partial d, does not supersede" + ascii(500),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("results after snip:\n%q\nwant\n%q", got, want)
	}
	if err := llm.ValidateHistory(out); err != nil {
		t.Fatal(err)
	}
	cs := ev.compacted()
	if len(cs) != 1 || cs[0].Tier != 2 || cs[0].TokensAfter >= cs[0].TokensBefore {
		t.Fatalf("events = %+v, want one tier-2 event that saves tokens", cs)
	}
}

// tier 1: above 50% of the window older results shrink to 8 KB, above 70%
// re-readable ones are snipped and the rest cut to 2 KB; the newest stay.
func TestBudgetTier(t *testing.T) {
	tests := []struct {
		name       string
		resultSize int
		check      func(t *testing.T, old, kind string, got string)
	}{
		{"below half: untouched", 12000, func(t *testing.T, orig, kind, got string) {
			if got != orig {
				t.Fatalf("%s result changed below 50%%", kind)
			}
		}},
		{"above half: cut to 8 KB", 24000, func(t *testing.T, orig, kind, got string) {
			if len(got) > 8000 || !strings.Contains(got, "bytes cut to fit the context window") || got[:100] != orig[:100] {
				t.Fatalf("%s result not cut to 8 KB with a note: %d bytes", kind, len(got))
			}
		}},
		{"above 70%: snip or 2 KB", 28800, func(t *testing.T, orig, kind, got string) {
			if kind == "read_file" {
				if !strings.HasPrefix(got, "[content snipped — re-read f") {
					t.Fatalf("old read not snipped: %.60q", got)
				}
				return
			}
			if len(got) > 2000 || got[len(got)-50:] != orig[len(orig)-50:] {
				t.Fatalf("old shell result not cut to 2 KB keeping its tail: %d bytes", len(got))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &hb{}
			b.user("task")
			for i := range 10 {
				r := string(rune('A'+i)) + ascii(tt.resultSize-1)
				if i%2 == 0 {
					b.read("f"+string(rune('a'+i))+".go", r)
				} else {
					b.shell("make "+string(rune('a'+i)), r)
				}
			}
			orig := results(b.h)
			m := newManager(compact.Options{Window: 100000}, newClock(), nil)
			out := m.BeforeRequest(baseRequest(b.h))
			got := results(out)
			for i := range got {
				kind := "run_shell"
				if i%2 == 0 {
					kind = "read_file"
				}
				if i >= 7 { // the three newest are left alone
					if got[i] != orig[i] {
						t.Fatalf("newest result %d was changed", i)
					}
					continue
				}
				tt.check(t, orig[i], kind, got[i])
			}
			if err := llm.ValidateHistory(out); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Cache discipline: while the cache is warm the previous request's prefix is
// never rewritten, even above 50%; once idle past the TTL, tier 3 clears old
// results of any tool.
func TestWarmCacheWaitsThenMicrocompact(t *testing.T) {
	c := newClock()
	ev := &events{}
	m := newManager(compact.Options{Window: 100000}, c, ev)
	b := &hb{}
	b.user("task")
	for i := range 6 {
		b.shell("step", string(rune('a'+i))+ascii(20000))
	}
	req := baseRequest(b.h)
	first := m.BeforeRequest(req) // ~30%: nothing to do
	if !reflect.DeepEqual(first, b.h) {
		t.Fatal("first request below 50% was changed")
	}
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 100, CacheWriteTokens: compact.EstimateRequest(req)}})
	sent := clone(first)

	// Two more steps push it above 50%, one minute later: warm, so wait.
	b.h = first
	b.say("next").user("go on")
	for i := range 6 {
		b.shell("more", string(rune('A'+i))+ascii(20000))
	}
	c.advance(time.Minute)
	second := m.BeforeRequest(baseRequest(b.h))
	if !reflect.DeepEqual(second[:len(sent)], sent) {
		t.Fatal("a warm cached prefix was rewritten")
	}
	// Above 50% the budget tier still works on what came after the cached
	// prefix: the older of the new results shrink, the newest three stay.
	tail := results(second[len(sent):])
	for i, r := range tail {
		if i < 3 && len(r) > 8000 {
			t.Fatalf("new result %d after the breakpoint not shortened: %d bytes", i, len(r))
		}
		if i >= 3 && len(r) != 20001 {
			t.Fatalf("newest result %d changed", i)
		}
	}
	ev.reset()

	// Six minutes idle: the cache is cold, old results are cleared.
	c.advance(6 * time.Minute)
	third := m.BeforeRequest(baseRequest(second))
	got := results(third)
	for i, r := range got[:len(got)-3] {
		if !strings.HasPrefix(r, "[old tool result cleared to save context — run run_shell again if needed]") {
			t.Fatalf("old result %d not cleared after idle: %.50q", i, r)
		}
	}
	for i, r := range got[len(got)-3:] {
		if len(r) != 20001 {
			t.Fatalf("newest result %d cleared", i)
		}
	}
	cs := ev.compacted()
	if len(cs) == 0 || cs[0].Tier != 3 {
		t.Fatalf("want a tier-3 event, got %+v", cs)
	}
	if err := llm.ValidateHistory(third); err != nil {
		t.Fatal(err)
	}
}

// A warm cache gives way when the history passes the threshold mid-turn:
// the request must fit more than the cache must be kept.
func TestSqueezeAboveThresholdMidTurn(t *testing.T) {
	c := newClock()
	ev := &events{}
	m := newManager(compact.Options{Window: 100000}, c, ev)
	b := &hb{}
	b.user("task")
	for range 3 {
		b.shell("build", ascii(40000))
	}
	req := baseRequest(b.h)
	b.h = m.BeforeRequest(req)
	m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: compact.EstimateRequest(req)}})
	for range 6 {
		b.shell("build", ascii(40000)) // 9 × 10k tokens: above the window
	}
	c.advance(10 * time.Second)
	req = baseRequest(b.h)
	out := m.BeforeRequest(req)
	req.Messages = out
	if n := compact.EstimateRequest(req); n > 92000 {
		t.Fatalf("request of %d tokens does not fit the window", n)
	}
	if err := llm.ValidateHistory(out); err != nil {
		t.Fatal(err)
	}
	got := results(out)
	if len(got) != 9 || !strings.HasSuffix(got[8], ascii(1000)) {
		t.Fatalf("results lost or the newest cut: %d", len(got))
	}
	if cs := ev.compacted(); len(cs) == 0 || cs[0].Tier != 1 {
		t.Fatalf("want tier-1 events, got %+v", cs)
	}
}

// Even a single result bigger than the window is cut so the request fits.
func TestSingleHugeResultFits(t *testing.T) {
	b := &hb{}
	b.user("dump").shell("cat big.log", strings.Repeat("日志", 150000))
	m := newManager(compact.Options{Window: 100000}, newClock(), nil)
	req := baseRequest(b.h)
	req.Messages = m.BeforeRequest(req)
	if n := compact.EstimateRequest(req); n > 92000 {
		t.Fatalf("request of %d tokens above the window", n)
	}
	if err := llm.ValidateHistory(req.Messages); err != nil {
		t.Fatal(err)
	}
}

func TestFormatTodos(t *testing.T) {
	got := compact.FormatTodos([]tools.Todo{{Content: "read config", Status: "completed"}, {Content: "改配置", Status: "in_progress"}})
	if want := "- [completed] read config\n- [in_progress] 改配置"; got != want {
		t.Fatalf("FormatTodos = %q, want %q", got, want)
	}
}

// The fast paths of EstimateText agree with a plain rune-by-rune count.
func TestEstimateTextFastPathsAgree(t *testing.T) {
	slow := func(s string) int {
		var a, c, o int
		for _, r := range s {
			switch {
			case r < 0x80:
				a++
			case (r >= 0x1100 && r <= 0x11FF) || (r >= 0x2E80 && r <= 0x9FFF) || (r >= 0xAC00 && r <= 0xD7AF) ||
				(r >= 0xF900 && r <= 0xFAFF) || (r >= 0xFF00 && r <= 0xFFEF) || (r >= 0x20000 && r <= 0x3FFFF):
				c++
			default:
				o++
			}
		}
		return c + (a+3)/4 + (o+1)/2
	}
	for _, s := range []string{"", "a", "abcdefghi", "日本語のテキストabc", "mixed 中文 and ascii text over eight bytes 한국어 ok",
		"émigré café", "emoji 😀😀 tail", "bad \xff\xfe utf8 \xe4\xb8", strings.Repeat("x中", 100)} {
		if got, want := compact.EstimateText(s), slow(s); got != want {
			t.Errorf("EstimateText(%q) = %d, rune count says %d", s, got, want)
		}
	}
}

// When text, not tool results, fills the window in mid-turn (huge pastes),
// the oldest messages are folded locally: the request fits, the pairs hold
// and the first request survives verbatim.
func TestMidTurnLocalFold(t *testing.T) {
	ev := &events{}
	m := newManager(compact.Options{Window: 100000, Instructions: func() string { return "Use tabs." }}, newClock(), ev)
	b := &hb{}
	b.user("first: " + strings.Repeat("规格说明", 100))
	for i := range 12 {
		b.say(strings.Repeat("分析结果", 2500)).user("paste " + string(rune('a'+i)) + strings.Repeat("日志", 2500))
	}
	b.read("a.go", ascii(1000))
	req := baseRequest(b.h)
	req.Messages = m.BeforeRequest(req)
	if n := compact.EstimateRequest(req); n > 92000 {
		t.Fatalf("request of %d tokens", n)
	}
	if err := llm.ValidateHistory(req.Messages); err != nil {
		t.Fatal(err)
	}
	text := allText(req.Messages)
	if !strings.Contains(text, "first: "+strings.Repeat("规格说明", 100)) || !strings.Contains(text, "Use tabs.") {
		t.Fatal("first request or instructions lost")
	}
	cs := ev.compacted()
	if len(cs) == 0 || cs[len(cs)-1].Tier != 4 || !strings.Contains(cs[len(cs)-1].Reason, "trimmed locally") {
		t.Fatalf("want a local tier-4 fold, got %+v", cs)
	}
}

// probe is a tool hew has never heard of; refetch makes it declare that its
// results can be fetched again.
type probe struct {
	agenttest.Tool
	refetch bool
}

func (p *probe) Refetch(input json.RawMessage) tools.Refetch {
	if !p.refetch {
		return tools.Refetch{}
	}
	return tools.Refetch{What: "probe " + tools.Field(input, "target")}
}

// Which old results may be snipped is what their tools declare
// (tools.Refetchable), through Options.Tools: a new tool that declares it
// gets its results snipped with a note naming what to fetch again, with no
// list of names to change; without the declaration its results are only
// cut.
func TestRefetchableToolsAreSnipped(t *testing.T) {
	for _, refetch := range []bool{true, false} {
		reg := tools.NewRegistry()
		reg.Register(&probe{Tool: agenttest.Tool{ToolName: "probe"}, refetch: refetch})
		b := &hb{}
		b.user("task")
		for i := range 10 {
			b.call("probe", `{"target":"t`+string(rune('a'+i))+`"}`, string(rune('A'+i))+ascii(28799))
		}
		orig := results(b.h)
		m := newManager(compact.Options{Window: 100000, Tools: reg.Get}, newClock(), nil)
		got := results(m.BeforeRequest(baseRequest(b.h)))
		snipped := strings.Contains(got[0], "probe ta")
		if snipped != refetch || got[0] == orig[0] {
			t.Errorf("refetchable %v: oldest result %.80q", refetch, got[0])
		}
		if got[9] != orig[9] {
			t.Errorf("refetchable %v: newest result changed", refetch)
		}
	}
}
