package render

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fakeClock is a settable time source.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

type mode struct {
	name       string
	tty, color bool
}

var modes = []mode{{"plain", false, false}, {"tty", true, false}, {"color", true, true}}

// harness builds a renderer over buffers with a manual clock and a manual
// spinner tick.
type harness struct {
	r     *Renderer
	out   *bytes.Buffer
	clock *fakeClock
	ticks chan time.Time
}

func newHarness(t *testing.T, m mode, width int, opts Options) *harness {
	t.Helper()
	s, _, out, _ := term.Test()
	s.OutTTY, s.Color = m.tty, m.color
	s.SetWidth(width)
	h := &harness{out: out, clock: &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, ticks: make(chan time.Time)}
	h.r = New(s, opts)
	h.r.now = h.clock.now
	h.r.spin.tick = func() (<-chan time.Time, func()) { return h.ticks, func() {} }
	t.Cleanup(h.r.Close)
	return h
}

// tick makes the spinner draw one frame and waits until it has.
func (h *harness) tick() {
	h.ticks <- h.clock.t
	// A second send completes only once the goroutine is back in its loop,
	// i.e. after the first frame was drawn.
	h.ticks <- h.clock.t
}

func (h *harness) emit(evs ...agent.Event) {
	for _, e := range evs {
		h.r.Emit(e)
	}
}

// visible makes control characters readable in golden files.
func visible(s string) string {
	return strings.NewReplacer("\x1b", `\e`, "\a", `\a`, "\r", `\r`).Replace(s)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	got = visible(got)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (run go test -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

const editDiff = `--- a/main.go
+++ b/main.go
@@ -1,3 +1,3 @@
 package main
-func hello() string { return "hi" }
+func hello() string { return "hello" }
`

// fullTurn is a turn touching every kind of output.
func fullTurn(h *harness) {
	h.emit(
		agent.TurnStarted{Prompt: "fix it"},
		agent.RequestStarted{RoundTrip: 1},
		agent.TextDelta{Text: "# Plan\n\nI'll read the **config** and"},
		agent.TextDelta{Text: " run `go test`.\n- first step\n- 中文 step\n1. numbered\n"},
		agent.TextDelta{Text: "```go\nfunc main() { x := a*b*c }\n```\n> quoted _note_\n---\nsnake_case stays"},
		agent.ToolStarted{ID: "t1", Name: "read_file", Input: raw(map[string]any{"file_path": "config.yaml"})},
		agent.ToolFinished{ID: "t1", Name: "read_file", Result: "1\tone\n2\ttwo\n3\tthree\n4\tfour\n5\tfive\n6\tsix\n7\tseven", Elapsed: 12 * time.Millisecond},
		agent.ToolStarted{ID: "t2", Name: "edit_file", Summary: "main.go", Input: raw(map[string]any{"file_path": "main.go"})},
		agent.ToolFinished{ID: "t2", Name: "edit_file", Result: "edited main.go", Display: editDiff},
		agent.ToolStarted{ID: "t3", Name: "todo_write", Summary: "3 todos"},
		agent.ToolFinished{ID: "t3", Name: "todo_write", Result: "ok", Todos: []tools.Todo{
			{Content: "read config", Status: "completed"}, {Content: "fix hello", Status: "in_progress"}, {Content: "run tests", Status: "pending"}}},
		agent.PermissionDecided{ID: "t4", Tool: "run_shell", Decision: "deny", Reason: "rule:deny run_shell(rm -rf*)"},
		agent.ToolFinished{ID: "t4", Name: "run_shell", Result: "Action denied: rule", IsError: true},
		agent.ToolStarted{ID: "t5", Name: "run_shell", Input: raw(map[string]any{"command": "go test ./..."})},
		agent.ToolFinished{ID: "t5", Name: "run_shell", Result: "FAIL: TestHello\n", IsError: true},
		agent.Notice{Level: "warn", Text: "retrying after 529 overloaded\nsecond line"},
		agent.Compacted{Tier: 4, TokensBefore: 150000, TokensAfter: 21000, Reason: "auto"},
		agent.UsageUpdated{Total: llm.Usage{InputTokens: 1200, OutputTokens: 300}, CostUSD: 0.0123},
		agent.ContextUpdated{Tokens: 50000, Window: 200000},
		agent.RequestStarted{RoundTrip: 2},
		agent.TextDelta{Text: "All **done**."},
		agent.TurnEnded{Result: agent.TurnResult{StopReason: agent.StopCompleted, RoundTrips: 2, ToolCalls: 4, CostUSD: 0.0123, DurationMS: 4200}},
	)
}

func TestGoldenFullTurn(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			h := newHarness(t, m, 60, Options{})
			fullTurn(h)
			golden(t, "full_turn_"+m.name, h.out.String())
		})
	}
}

func TestGoldenVerbose(t *testing.T) {
	h := newHarness(t, modes[0], 60, Options{Verbose: true})
	fullTurn(h)
	golden(t, "full_turn_verbose", h.out.String())
}

func TestGoldenStopReasons(t *testing.T) {
	for _, m := range []mode{modes[0], modes[2]} {
		t.Run(m.name, func(t *testing.T) {
			h := newHarness(t, m, 60, Options{})
			for _, res := range []agent.TurnResult{
				{StopReason: agent.StopAborted},
				{StopReason: agent.StopError, Err: "model API error 401: invalid key"},
				{StopReason: agent.StopMaxTurns},
				{StopReason: agent.StopMaxBudget},
			} {
				h.emit(agent.TurnStarted{}, agent.RequestStarted{}, agent.TextDelta{Text: "partial"}, agent.TurnEnded{Result: res})
			}
			golden(t, "stop_reasons_"+m.name, h.out.String())
		})
	}
}

func TestGoldenApproval(t *testing.T) {
	for _, m := range []mode{modes[0], modes[2]} {
		t.Run(m.name, func(t *testing.T) {
			h := newHarness(t, m, 60, Options{})
			h.r.ShowApproval(agent.ApprovalRequest{Tool: "run_shell", Subject: "rm -rf build &&\n  make", Reason: "danger:recursive-delete"})
			h.r.Answered(agent.ApproveDeny)
			h.r.ShowApproval(agent.ApprovalRequest{Tool: "edit_file", Subject: "main.go", Diff: editDiff})
			h.r.Answered(agent.ApproveSession)
			h.r.ShowApproval(agent.ApprovalRequest{Tool: "run_shell", Subject: "terraform plan", Reason: "`terraform` talks to infrastructure and is not a known-safe command", Suggest: "run_shell(terraform plan:*)", SessionScope: "this exact command"})
			h.r.Answered(agent.ApproveAlways)
			golden(t, "approval_"+m.name, h.out.String())
		})
	}
}

func TestSpinnerErasedBeforeText(t *testing.T) {
	h := newHarness(t, modes[2], 60, Options{})
	h.emit(agent.TurnStarted{}, agent.RequestStarted{})
	h.clock.advance(3 * time.Second)
	h.tick()
	h.emit(agent.TextDelta{Text: "hello"})
	got := h.out.String()
	frame := strings.Index(got, "Thinking… 3s")
	erase := strings.Index(got, "\r\x1b[K")
	text := strings.Index(got, "hello")
	if frame < 0 || erase < frame || text < erase {
		t.Fatalf("want spinner frame with elapsed time, then erase, then text; got %q", got)
	}
}

func TestNoSpinnerWhenPiped(t *testing.T) {
	h := newHarness(t, modes[0], 60, Options{})
	h.emit(agent.TurnStarted{}, agent.RequestStarted{})
	if h.r.spin.active {
		t.Fatal("spinner started on a pipe")
	}
	h.emit(agent.TextDelta{Text: "x"}, agent.TurnEnded{})
	if got := h.out.String(); got != "x\n" {
		t.Fatalf("piped output = %q, want %q", got, "x\n")
	}
}

func TestWrappedLineIsErasedWhole(t *testing.T) {
	h := newHarness(t, modes[2], 20, Options{})
	// 34 columns at width 20 occupy two rows: the redraw must go up one.
	h.emit(agent.TurnStarted{}, agent.TextDelta{Text: "**bold** 中文中文中文 and more words\n"})
	if got := h.out.String(); !strings.Contains(got, "\r\x1b[1A\x1b[J") {
		t.Fatalf("no two-row erase in %q", visible(got))
	}
}

func TestToolResultCutToWidthWithWideRunes(t *testing.T) {
	h := newHarness(t, modes[0], 20, Options{})
	h.emit(agent.ToolStarted{ID: "a", Name: "read_file", Summary: "x"},
		agent.ToolFinished{ID: "a", Name: "read_file", Result: "中文中文中文中文中文中文"})
	for _, l := range strings.Split(strings.TrimRight(h.out.String(), "\n"), "\n") {
		if w := Width(l); w > 20 {
			t.Errorf("line %q is %d columns wide, want ≤ 20", l, w)
		}
	}
}

func TestBell(t *testing.T) {
	tests := []struct {
		name   string
		mode   mode
		after  time.Duration
		took   time.Duration
		ringed bool
	}{
		{"long turn rings", modes[1], 0, 11 * time.Second, true},
		{"short turn is quiet", modes[1], 0, 2 * time.Second, false},
		{"custom threshold", modes[1], time.Second, 2 * time.Second, true},
		{"bell off", modes[1], -1, time.Hour, false},
		{"never on a pipe", modes[0], 0, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.mode, 60, Options{BellAfter: tt.after})
			h.emit(agent.TurnStarted{})
			h.clock.advance(tt.took)
			h.emit(agent.TurnEnded{})
			if got := strings.Contains(h.out.String(), "\a"); got != tt.ringed {
				t.Errorf("bell rang = %v, want %v (output %q)", got, tt.ringed, h.out.String())
			}
		})
	}
}

func TestQuestionRingsBell(t *testing.T) {
	h := newHarness(t, modes[1], 60, Options{})
	h.r.ShowApproval(agent.ApprovalRequest{Tool: "run_shell", Subject: "make"})
	if !strings.Contains(h.out.String(), "\a") {
		t.Error("a waiting question did not ring the bell")
	}
}

func TestEscapeSequencesFromModelAreDropped(t *testing.T) {
	for _, m := range modes {
		h := newHarness(t, m, 60, Options{})
		h.emit(agent.TextDelta{Text: "a\x1b]0;pwned\x07b\x1b[2Jc\n"},
			agent.ToolStarted{ID: "x", Name: "run_shell", Summary: "ls"},
			agent.ToolFinished{ID: "x", Name: "run_shell", Result: "\x1b[31mred\x1b[0m"})
		if strings.Contains(h.out.String(), "]0;") || strings.Contains(h.out.String(), "[2J") || strings.Contains(h.out.String(), "\x07") {
			t.Errorf("%s: control sequence passed through: %q", m.name, h.out.String())
		}
	}
}

func TestParallelToolResultsNameTheirCall(t *testing.T) {
	h := newHarness(t, modes[0], 60, Options{})
	h.emit(agent.ToolStarted{ID: "a", Name: "read_file", Summary: "a.txt"},
		agent.ToolStarted{ID: "b", Name: "read_file", Summary: "b.txt"},
		agent.ToolFinished{ID: "a", Name: "read_file", Result: "A"},
		agent.ToolFinished{ID: "b", Name: "read_file", Result: "B"})
	want := "● read_file a.txt\n● read_file b.txt\n● read_file a.txt\n  ⎿  A\n● read_file b.txt\n  ⎿  B\n"
	if got := h.out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCallLineShowsToolNameOnce(t *testing.T) {
	h := newHarness(t, modes[0], 60, Options{})
	h.emit(agent.ToolStarted{ID: "a", Name: "read_file", Summary: "read_file(notes/a.txt)"},
		agent.ToolStarted{ID: "b", Name: "grep_search", Input: raw(map[string]any{"pattern": "FIXTHIS", "path": "src"})})
	got := h.out.String()
	if !strings.HasPrefix(got, "● read_file notes/a.txt\n● grep_search FIXTHIS") {
		t.Errorf("call lines = %q", got)
	}
}
