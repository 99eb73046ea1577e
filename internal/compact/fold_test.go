package compact_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

const firstTask = "把 MAX_RESULT_CHARS 改成 60000，不要改测试文件。Keep the public API unchanged."

const summaryText = "## User requests and constraints\n(see below)\n## Verified facts\nconfig.go holds MAX_RESULT_CHARS\n## Work done and files changed\nnone\n## Errors met and how they were solved\nnone\n## Open problems\nnone\n## Next step\nedit config.go"

// longHistory is several turns whose tool results fill most of the window.
func longHistory() *hb {
	b := &hb{}
	b.user(firstTask)
	for i := range 8 {
		if i > 0 {
			b.user("continue with step " + string(rune('0'+i)))
		}
		b.read("src/file"+string(rune('a'+i))+".go", ascii(44000))
		b.say("Read it.")
	}
	return b
}

func TestAutoCompactAtTurnStart(t *testing.T) {
	root := t.TempDir()
	env := &tools.Env{Root: root, SessionID: "sess-1"}
	p := &fakeProvider{summary: summaryText}
	ev := &events{}
	var records []any
	m := newManager(compact.Options{Provider: p, Window: 100000, Auto: true, Env: env,
		Instructions: func() string { return "# AGENTS.md\nAlways run go vet." },
		Todos:        func() string { return "- [in_progress] edit config.go" },
		Record:       func(kind string, v any) { records = append(records, v) },
	}, newClock(), ev)
	b := longHistory()
	b.user("now also update the README")
	req := baseRequest(b.h)
	before := compact.EstimateRequest(req)
	if before < 85000 {
		t.Fatalf("test history too small: %d tokens", before)
	}
	out := m.AtTurnStart(context.Background(), req)

	if len(p.summaries) != 1 {
		t.Fatalf("summary requests = %d, want 1", len(p.summaries))
	}
	sr := p.summaries[0]
	if sr.Purpose != llm.PurposeCompact || !strings.HasPrefix(sr.System[0].Text, llm.PurposeTag(llm.PurposeCompact)) {
		t.Fatalf("summary request not tagged: purpose %q, system %.60q", sr.Purpose, sr.System[0].Text)
	}
	for _, section := range []string{"User requests and constraints", "Verified facts", "Work done and files changed", "Errors met", "Open problems", "Next step"} {
		if !strings.Contains(sr.System[0].Text, section) {
			t.Fatalf("summary prompt lacks section %q", section)
		}
	}
	if err := llm.ValidateHistory(out); err != nil {
		t.Fatal(err)
	}
	req.Messages = out
	after := compact.EstimateRequest(req)
	if after > before/2 {
		t.Fatalf("compaction kept %d of %d tokens", after, before)
	}
	text := allText(out)
	for _, want := range []string{summaryText, firstTask, "continue with step 3", "# AGENTS.md\nAlways run go vet.", "- [in_progress] edit config.go"} {
		if !strings.Contains(text, want) {
			t.Fatalf("compacted history lacks %q", want)
		}
	}
	// The recent turns are kept whole, the new prompt last.
	if last := out[len(out)-1]; last.Text() != "now also update the README" {
		t.Fatalf("last message = %q", last.Text())
	}
	cs := ev.compacted()
	if len(cs) != 1 || cs[0].Tier != 4 || cs[0].TokensAfter >= cs[0].TokensBefore {
		t.Fatalf("events = %+v", cs)
	}
	if len(records) != 1 || records[0].(compact.CompactionRecord).Summary != summaryText {
		t.Fatalf("records = %+v", records)
	}
	if s := m.Stats(); s.Compactions != 1 {
		t.Fatalf("stats = %+v", s)
	}

	// A second compaction later still carries the first request verbatim.
	b2 := &hb{h: out, n: 100}
	for i := range 8 {
		b2.read("src/more"+string(rune('a'+i))+".go", ascii(44000))
		b2.say("ok").user("more " + string(rune('a'+i)))
	}
	req2 := baseRequest(b2.h)
	out2 := m.AtTurnStart(context.Background(), req2)
	if len(p.summaries) != 2 || !strings.Contains(allText(out2), firstTask) {
		t.Fatalf("second compaction lost the first request (summaries %d)", len(p.summaries))
	}
	if strings.Count(allText(out2), "# AGENTS.md") != 1 {
		t.Fatal("project instructions duplicated or lost after a second compaction")
	}
}

func TestAutoCompactOffOrBelowThreshold(t *testing.T) {
	p := &fakeProvider{summary: summaryText}
	b := longHistory()
	b.user("next")
	for _, o := range []compact.Options{{Provider: p, Window: 100000}, {Provider: p, Window: 400000, Auto: true}} {
		m := newManager(o, newClock(), nil)
		out := m.AtTurnStart(context.Background(), baseRequest(b.h))
		if !reflect.DeepEqual(out, b.h) || len(p.summaries) != 0 {
			t.Fatalf("compacted with %+v", o)
		}
	}
}

// The summary request itself never exceeds the window, however long the
// history already is.
func TestSummaryRequestFitsWhenHistoryIsOverWindow(t *testing.T) {
	p := &fakeProvider{summary: summaryText}
	m := newManager(compact.Options{Provider: p, Window: 50000, Auto: true}, newClock(), nil)
	b := &hb{}
	b.user(firstTask)
	for i := range 40 {
		b.shell("step", strings.Repeat("输出", 4000))
		b.say("ok").user("step " + string(rune('a'+i%26)))
	}
	req := baseRequest(b.h)
	if n := compact.EstimateRequest(req); n < 150000 {
		t.Fatalf("history only %d tokens", n)
	}
	out := m.AtTurnStart(context.Background(), req)
	if len(p.summaries) != 1 {
		t.Fatal("no summary request")
	}
	sr := p.summaries[0]
	if n := compact.EstimateRequest(sr) + sr.MaxTokens; n > 50000 {
		t.Fatalf("summary request needs %d tokens, window 50000", n)
	}
	req.Messages = out
	if n := compact.EstimateRequest(req); n > 42000 {
		t.Fatalf("history after compaction %d tokens", n)
	}
	if !strings.Contains(allText(out), firstTask) {
		t.Fatal("first request lost")
	}
}

func TestRecoverPromptTooLong(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		summaryOK bool
		want      bool
	}{
		{"prompt too long, summary works", &llm.APIError{Status: 400, Message: "prompt is too long: 210000 tokens > 200000 maximum"}, true, true},
		{"prompt too long, wrapped, summary fails", errors.Join(errors.New("turn"), &llm.APIError{Status: 400, Message: "This model's maximum context length is 128000 tokens"}), false, true},
		{"other 400", &llm.APIError{Status: 400, Message: "invalid tool schema"}, true, false},
		{"overloaded", &llm.APIError{Status: 529, Message: "overloaded"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &fakeProvider{summary: summaryText}
			if !tt.summaryOK {
				p.summaryErr = &llm.APIError{Status: 500, Message: "boom"}
			}
			ev := &events{}
			m := newManager(compact.Options{Provider: p, Window: 100000}, newClock(), ev)
			b := longHistory()
			b.user("and the last file")
			b.read("last.go", ascii(3000)) // mid-turn: ends with a tool result
			req := baseRequest(b.h)
			out, ok := m.Recover(context.Background(), req, tt.err)
			if ok != tt.want {
				t.Fatalf("Recover ok = %v, want %v", ok, tt.want)
			}
			if !ok {
				if !reflect.DeepEqual(out, b.h) {
					t.Fatal("history changed without a retry")
				}
				return
			}
			if err := llm.ValidateHistory(out); err != nil {
				t.Fatal(err)
			}
			req.Messages = out
			if n := compact.EstimateRequest(req); n > 40000 {
				t.Fatalf("after recovery %d tokens", n)
			}
			if !strings.Contains(allText(out), firstTask) {
				t.Fatal("first request lost")
			}
			if last := results(out); last[len(last)-1] != ascii(3000) {
				t.Fatal("the pending tool result was not kept")
			}
			if !tt.summaryOK && len(ev.notices()) == 0 {
				t.Fatal("no notice about the failed summary")
			}
		})
	}
}

func TestManualCompact(t *testing.T) {
	p := &fakeProvider{summary: summaryText}
	m := newManager(compact.Options{Provider: p, Window: 200000}, newClock(), nil)
	// A single short exchange: nothing to fold.
	one := []llm.Message{llm.UserText("hi"), {Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "hello"}}}}
	if _, err := m.Compact(context.Background(), baseRequest(one), ""); err == nil {
		t.Fatal("compacting a two-message history should say there is nothing to gain")
	}
	b := longHistory()
	out, err := m.Compact(context.Background(), baseRequest(b.h), "the config change")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.summaries[len(p.summaries)-1].System[0].Text, "focus on: the config change") {
		t.Fatal("focus not passed to the summary request")
	}
	if err := llm.ValidateHistory(out); err != nil {
		t.Fatal(err)
	}
	if len(out) >= len(b.h) {
		t.Fatal("history not shorter")
	}
	// The summary provider failing makes /compact fail and keep the history.
	p.summaryErr = errors.New("network down")
	out2, err := m.Compact(context.Background(), baseRequest(b.h), "")
	if err == nil || !reflect.DeepEqual(out2, b.h) {
		t.Fatalf("err = %v; history kept = %v", err, reflect.DeepEqual(out2, b.h))
	}
	// A cancelled context stops it too.
	p.summaryErr = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Compact(ctx, baseRequest(b.h), ""); err == nil {
		t.Fatal("compaction ran with a cancelled context")
	}
}

// The health probe undoes a compaction that leaves the session broken.
func TestHealthProbeRestores(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(env *tools.Env, req *llm.Request)
	}{
		{"working directory removed", func(env *tools.Env, _ *llm.Request) { _ = os.RemoveAll(env.Root) }},
		{"session id changed", func(env *tools.Env, _ *llm.Request) { env.SessionID = "other" }},
		{"tools vanished", func(_ *tools.Env, req *llm.Request) { req.Tools = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "proj")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			env := &tools.Env{Root: root, SessionID: "sess-1"}
			p := &fakeProvider{summary: summaryText}
			ev := &events{}
			m := newManager(compact.Options{Provider: p, Window: 100000, Auto: true, Env: env}, newClock(), ev)
			b := longHistory()
			req := baseRequest(b.h[:3])
			m.BeforeRequest(req) // the manager learns the session's tools, root and id
			b.user("next")
			req = baseRequest(b.h)
			tt.break_(env, req)
			out := m.AtTurnStart(context.Background(), req)
			if !reflect.DeepEqual(out, b.h) {
				t.Fatal("broken compaction was not undone")
			}
			ns := ev.notices()
			if len(ns) == 0 || ns[0].Level != "warn" || !strings.Contains(ns[0].Text, "health check") {
				t.Fatalf("notices = %+v", ns)
			}
			if len(ev.compacted()) != 0 {
				t.Fatal("a Compacted event for an undone compaction")
			}
		})
	}
}

func TestValidateHistory(t *testing.T) {
	use := func(ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleAssistant}
		for _, id := range ids {
			m.Content = append(m.Content, llm.Block{Type: llm.BlockToolUse, ID: id, Name: "x", Input: []byte(`{}`)})
		}
		return m
	}
	res := func(ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleUser}
		for _, id := range ids {
			m.Content = append(m.Content, llm.Block{Type: llm.BlockToolResult, ID: id, Content: "ok"})
		}
		return m
	}
	say := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "ok"}}}
	u := llm.UserText("hi")
	tests := []struct {
		name string
		h    []llm.Message
		ok   bool
	}{
		{"empty", nil, true},
		{"simple", []llm.Message{u, say}, true},
		// One validator (llm.ValidateHistory) for loop, compaction, resume
		// and tests: results answer in call order; two user messages in a
		// row are accepted (providers join them).
		{"parallel pair", []llm.Message{u, use("a", "b"), res("a", "b"), say}, true},
		{"parallel pair out of order", []llm.Message{u, use("a", "b"), res("b", "a"), say}, false},
		{"starts with assistant", []llm.Message{say, u}, false},
		{"two users", []llm.Message{u, u}, true},
		{"unanswered call", []llm.Message{u, use("a"), u}, false},
		{"half answered", []llm.Message{u, use("a", "b"), res("a"), say}, false},
		{"wrong id", []llm.Message{u, use("a"), res("z"), say}, false},
		{"dangling at end", []llm.Message{u, use("a")}, false},
		{"repeated id", []llm.Message{u, use("a"), res("a"), use("a"), res("a")}, false},
		{"orphan result", []llm.Message{res("a"), say}, false},
		{"empty message", []llm.Message{u, {Role: llm.RoleAssistant}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := llm.ValidateHistory(tt.h); (err == nil) != tt.ok {
				t.Fatalf("ValidateHistory = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func allText(h []llm.Message) string {
	var sb strings.Builder
	for _, m := range h {
		for _, b := range m.Content {
			sb.WriteString(b.Text)
			sb.WriteString(b.Content)
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

var _ = agent.Notice{}

func TestSetProviderRoutesSummaries(t *testing.T) {
	oldP, newP := &fakeProvider{summary: "old"}, &fakeProvider{summary: summaryText}
	m := newManager(compact.Options{Provider: oldP, Window: 100000}, newClock(), nil)
	m.SetProvider(newP, "claude-haiku-4-5")
	if _, err := m.Compact(context.Background(), baseRequest(longHistory().h), ""); err != nil {
		t.Fatal(err)
	}
	if len(oldP.summaries) != 0 || len(newP.summaries) != 1 || newP.summaries[0].Model != "claude-haiku-4-5" {
		t.Fatalf("summaries: old %d, new %d", len(oldP.summaries), len(newP.summaries))
	}
}
