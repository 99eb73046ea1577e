package repl

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/core"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

type rig struct {
	ag   *fakeAgent
	s    *term.Streams
	out  *syncBuffer
	ints chan os.Signal
	opts Options
}

// newRig wires a fake agent, piped-style streams and a renderer like
// internal/app does.
func newRig(in io.Reader) *rig {
	s, _, _, _ := term.Test()
	out := &syncBuffer{}
	s.In, s.Out = in, out
	r := render.New(s, render.Options{})
	ag := newFakeAgent()
	ag.emit = r.Emit
	ap := NewApprover(s, r)
	ag.approver = ap
	ints := make(chan os.Signal, 4)
	ag.sessions = []core.Summary{
		{ID: "01JOLDER", Updated: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Title: "fix the\nflaky test", Messages: 4},
	}
	return &rig{ag: ag, s: s, out: out, ints: ints, opts: Options{
		Streams: s, Session: ag, Renderer: r, Approver: ap, Interrupts: ints,
	}}
}

func TestScriptedSession(t *testing.T) {
	script := strings.Join([]string{
		"hello there", "", "/help", "/status", "/cost", "/mode plan", "/mode nonsense", "/mode",
		"/plan", "/mode default", "/model", "/model gpt-5", "/model broken", "y", "/model gtp-5", "n", "/goal ship it", "/memory",
		"/frobnicate", "/usr/bin/env is a path", "//help literally", "/compact keep the API notes",
		"/clear", "/resume", "/resume 1", "/resume nope", "/exit", "never read",
	}, "\n") + "\n"
	defer func(old func() time.Time) { timeNow = old }(timeNow)
	timeNow = func() time.Time { return time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC) }
	rg := newRig(strings.NewReader(script))
	code := Run(context.Background(), rg.opts)
	if code != ExitOK {
		t.Errorf("exit code = %d, want %d", code, ExitOK)
	}
	wantPrompts := []string{"hello there", "/usr/bin/env is a path", "/help literally"}
	if got := rg.ag.gotPrompts(); !slices.Equal(got, wantPrompts) {
		t.Errorf("prompts sent = %q, want %q", got, wantPrompts)
	}
	if rg.ag.model != "gpt-5" || rg.ag.cleared != 1 || !slices.Equal(rg.ag.compacts, []string{"keep the API notes"}) {
		t.Errorf("model=%q cleared=%d compacts=%q", rg.ag.model, rg.ag.cleared, rg.ag.compacts)
	}
	golden(t, "scripted_session", rg.out.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
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
		t.Errorf("%s differs from the golden file\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func TestEndOfInputExits(t *testing.T) {
	rg := newRig(strings.NewReader("one\ntwo"))
	if code := Run(context.Background(), rg.opts); code != ExitOK {
		t.Fatalf("exit code = %d", code)
	}
	if got := rg.ag.gotPrompts(); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("prompts = %q", got)
	}
}

func TestCtrlCStopsTheTurnAndThePromptReturns(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	rg := newRig(pr)
	done := make(chan int, 1)
	go func() { done <- Run(context.Background(), rg.opts) }()

	_, _ = io.WriteString(pw, "slow\n")
	<-rg.ag.started
	rg.ints <- os.Interrupt
	<-rg.ag.aborted
	if !waitFor(rg.out, "Interrupted") {
		t.Fatalf("no interruption shown: %q", rg.out.String())
	}
	_, _ = io.WriteString(pw, "next\n/exit\n")
	if code := <-done; code != ExitOK {
		t.Fatalf("exit code = %d", code)
	}
	if got := rg.ag.gotPrompts(); !slices.Equal(got, []string{"slow", "next"}) {
		t.Fatalf("prompts = %q; the turn after the interrupt must run", got)
	}
	if !strings.Contains(rg.out.String(), `echo: "next"`) {
		t.Errorf("second turn output missing: %q", rg.out.String())
	}
}

func TestDoubleCtrlCAtEmptyPromptExits(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	timeNow = func() time.Time { return clock }
	defer func() { timeNow = time.Now }()

	pr, pw := io.Pipe()
	defer pw.Close()
	rg := newRig(pr)
	done := make(chan int, 1)
	go func() { done <- Run(context.Background(), rg.opts) }()

	const hint = "Press Ctrl+C again to exit"
	rg.ints <- os.Interrupt
	if !waitFor(rg.out, hint) {
		t.Fatalf("no hint after the first Ctrl+C: %q", rg.out.String())
	}
	// Too late for the window: another hint, no exit.
	clock = clock.Add(3 * time.Second)
	rg.ints <- os.Interrupt
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(rg.out.String(), hint) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := strings.Count(rg.out.String(), hint); n != 2 {
		t.Fatalf("hints = %d after a late second Ctrl+C, want 2", n)
	}
	select {
	case code := <-done:
		t.Fatalf("exited (%d) on a Ctrl+C outside the window", code)
	default:
	}
	clock = clock.Add(time.Second)
	rg.ints <- os.Interrupt
	if code := <-done; code != ExitOK {
		t.Fatalf("exit code = %d, want %d", code, ExitOK)
	}
}

func TestCancelledContextExitsInterrupted(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	rg := newRig(pr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, rg.opts) }()
	cancel()
	if code := <-done; code != ExitInterrupted {
		t.Fatalf("exit code = %d, want %d", code, ExitInterrupted)
	}
}

// SIGTERM (Options.Terminate) ends the session the way a cancelled
// context does.
func TestTerminateExitsInterrupted(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	rg := newRig(pr)
	sig := make(chan os.Signal, 1)
	rg.opts.Terminate = sig
	done := make(chan int, 1)
	go func() { done <- Run(context.Background(), rg.opts) }()
	sig <- syscall.SIGTERM
	if code := <-done; code != ExitInterrupted {
		t.Fatalf("exit code = %d, want %d", code, ExitInterrupted)
	}
}

func TestApprovalFromScript(t *testing.T) {
	tests := []struct {
		answer string
		want   agent.Approval
	}{
		{"y", agent.ApproveOnce},
		{"YES", agent.ApproveOnce},
		{"a", agent.ApproveSession},
		{"n", agent.ApproveDeny},
		{"maybe", agent.ApproveDeny},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			rg := newRig(strings.NewReader("ask\n" + tt.answer + "\n"))
			Run(context.Background(), rg.opts)
			out := rg.out.String()
			if !strings.Contains(out, "Allow run_shell?") || !strings.Contains(out, "│ make clean") {
				t.Errorf("question does not show tool and command: %q", out)
			}
			if !strings.Contains(out, "approval="+string(tt.want)) {
				t.Errorf("answer %q: want approval=%s in %q", tt.answer, tt.want, out)
			}
		})
	}
}

func TestApprovalDeniedWhenInputEndsOrTurnStops(t *testing.T) {
	s, _, _, _ := term.Test()
	r := render.New(s, render.Options{})
	ap := NewApprover(s, r)
	if a, why := ap.Approve(context.Background(), agent.ApprovalRequest{Tool: "run_shell", Subject: "ls"}); a != agent.ApproveDeny || !strings.Contains(why, "input ended") {
		t.Errorf("at end of input: %s %q", a, why)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if a, _ := ap.Approve(ctx, agent.ApprovalRequest{Tool: "run_shell", Subject: "ls"}); a != agent.ApproveDeny {
		t.Errorf("cancelled turn: %s", a)
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		in, name, args string
		ok             bool
	}{
		{"/help", "help", "", true},
		{"/COMPACT  keep tests ", "compact", "keep tests", true},
		{"/usr/bin/env", "", "", false},
		{"//help", "", "", false},
		{"/", "", "", false},
		{"hello /help", "", "", false},
	}
	for _, tt := range tests {
		name, args, ok := parseCommand(strings.TrimSpace(tt.in))
		if name != tt.name || args != tt.args || ok != tt.ok {
			t.Errorf("parseCommand(%q) = %q, %q, %v", tt.in, name, args, ok)
		}
	}
}

func TestCacheHitRate(t *testing.T) {
	if got := cacheHitRate(llm.Usage{}); got != -1 {
		t.Errorf("no usage: %v", got)
	}
	if got := cacheHitRate(llm.Usage{InputTokens: 100, CacheReadTokens: 300}); got != 0.75 {
		t.Errorf("rate = %v, want 0.75", got)
	}
}

func TestPipedInputEchoedOnTerminalOutput(t *testing.T) {
	rg := newRig(strings.NewReader("hi\n"))
	rg.s.OutTTY = true // output to a terminal, input from a pipe
	Run(context.Background(), rg.opts)
	if got := rg.out.String(); !strings.Contains(got, "› hi\n") {
		t.Errorf("prompt and line not echoed: %q", got)
	}
}

// /skills, /NAME, /remember, /memory and /goal reach their capabilities.
func TestExtrasCommands(t *testing.T) {
	script := strings.Join([]string{
		"/skills", "/review main.go", "/remember use tabs", "/remember", "/memory", "/goal tests pass",
		"/loop 5m", "/loop dynamic check", "/nosuchskill x", "/exit",
	}, "\n") + "\n"
	rg := newRig(strings.NewReader(script))
	var remembered []string
	var goals []string
	rg.ag.skills = []core.SkillCommand{{Name: "review", Description: "review a file", Source: "project"}}
	rg.ag.skillText = func(name, args string) (string, bool) {
		if name != "review" {
			return "", false
		}
		return "REVIEW " + args, true
	}
	rg.ag.memories = func() ([]string, error) { return remembered, nil }
	rg.ag.remember = func(text string) (string, error) {
		remembered = append(remembered, "project "+text)
		return "project/x", nil
	}
	rg.ag.goal = func(ctx context.Context, cond string) agent.TurnResult {
		goals = append(goals, cond)
		return agent.TurnResult{StopReason: agent.StopGoalMet}
	}
	if code := Run(context.Background(), rg.opts); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	out := rg.out.String()
	if got := rg.ag.gotPrompts(); !slices.Equal(got, []string{"REVIEW main.go"}) {
		t.Errorf("prompts = %q", got)
	}
	if !slices.Equal(remembered, []string{"project use tabs"}) || !slices.Equal(goals, []string{"tests pass"}) {
		t.Errorf("remembered %q goals %q", remembered, goals)
	}
	for _, want := range []string{"/review", "review a file", "Remembered (project/x).", "Usage: /remember TEXT",
		"project use tabs", "Goal met.", "Usage: /loop INTERVAL PROMPT", "Loop ended: no next round was scheduled.", "Unknown command /nosuchskill."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// /loop runs the prompt, then waits; Ctrl+C during the wait stops the loop.
func TestLoopStopsOnCtrlC(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	rg := newRig(pr)
	done := make(chan int, 1)
	go func() { done <- Run(context.Background(), rg.opts) }()
	go io.WriteString(pw, "/loop 1h tick\n")
	deadline := time.After(10 * time.Second)
	for len(rg.ag.gotPrompts()) == 0 {
		select {
		case <-deadline:
			t.Fatal("the loop never ran its prompt")
		case <-time.After(10 * time.Millisecond):
		}
	}
	for !strings.Contains(rg.out.String(), "loop round 1") {
		time.Sleep(10 * time.Millisecond)
	}
	rg.ints <- os.Interrupt
	for !strings.Contains(rg.out.String(), "Loop stopped.") {
		select {
		case <-deadline:
			t.Fatalf("loop did not stop:\n%s", rg.out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	pw.Close()
	if code := <-done; code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if got := rg.ag.gotPrompts(); !slices.Equal(got, []string{"tick"}) {
		t.Fatalf("prompts %q", got)
	}
}

// /status names each MCP server's state, so a failed server is visible.
func TestStatusShowsMCPServers(t *testing.T) {
	rg := newRig(strings.NewReader("/status\n"))
	rg.ag.status = func() core.Status {
		return core.Status{ID: "s", CacheHitRate: -1, MCP: []string{"db: failed, 0 tools — server crashed 3 times"}, Trust: "not trusted: 1 hook ignored"}
	}
	Run(context.Background(), rg.opts)
	if out := rg.out.String(); !strings.Contains(out, "db: failed, 0 tools — server crashed 3 times") || !strings.Contains(out, "trust") || !strings.Contains(out, "not trusted: 1 hook ignored") {
		t.Fatalf("status:\n%s", out)
	}
}

// /status says what activating deferred tools cost in cache misses
// (issue 12.13: tools lead the cached prefix).
func TestStatusShowsToolListCacheMisses(t *testing.T) {
	rg := newRig(strings.NewReader("/status\n"))
	rg.ag.status = func() core.Status {
		return core.Status{ID: "s", CacheHitRate: 0.8, ToolListMisses: 1, ToolListMissTokens: 24000}
	}
	Run(context.Background(), rg.opts)
	if out := rg.out.String(); !strings.Contains(out, "deferred tools activated) cost 1 cache miss, 24") {
		t.Fatalf("status:\n%s", out)
	}
}

// /loop dynamic runs rounds while the model schedules wake-ups, and ends
// when a round schedules none.
func TestDynamicLoopEndsWithoutWakeup(t *testing.T) {
	rg := newRig(strings.NewReader("/loop dynamic watch the deploy\n"))
	rounds := 0
	rg.ag.loopRound = func(ctx context.Context, prompt string) (time.Duration, string, bool) {
		rounds++
		if prompt != "watch the deploy" {
			t.Errorf("prompt %q", prompt)
		}
		return time.Millisecond, "deploy still running", rounds < 3
	}
	Run(context.Background(), rg.opts)
	out := rg.out.String()
	if rounds != 3 || strings.Count(out, "(in 1ms): deploy still running") != 2 || !strings.Contains(out, "Loop ended: no next round was scheduled.") {
		t.Fatalf("rounds %d:\n%s", rounds, out)
	}
}

// A loop ends at its limit (LoopNext says why), and /status shows the
// session's autonomy rows.
func TestLoopLimitAndAutonomyStatus(t *testing.T) {
	rg := newRig(strings.NewReader("/loop dynamic watch\n/status\n"))
	rg.ag.loopMax = 2
	rounds := 0
	rg.ag.loopRound = func(context.Context, string) (time.Duration, string, bool) {
		rounds++
		return time.Millisecond, "again", true
	}
	rg.ag.status = func() core.Status {
		return core.Status{ID: "s", CacheHitRate: -1, Autonomy: [][2]string{{"auto", "4 allowed · 3 blocked (3 in a row) · asking now"}}}
	}
	Run(context.Background(), rg.opts)
	out := rg.out.String()
	if rounds != 2 || !strings.Contains(out, "Loop ended: the loop's limit of 2 rounds is reached.") || !strings.Contains(out, "4 allowed · 3 blocked") {
		t.Fatalf("rounds %d:\n%s", rounds, out)
	}
}

// A resumed session (-c, --resume, /resume) redraws its last exchanges,
// tool calls as one line, and leaving says how to come back.
func TestResumeRedrawsTranscript(t *testing.T) {
	rg := newRig(strings.NewReader("/resume 1\n/exit\n"))
	rg.ag.history = []llm.Message{
		llm.UserText("an old question nobody needs to see"),
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "old answer"}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "<system-reminder>\nToday's date: 2026-12-01\n</system-reminder>"},
			{Type: llm.BlockText, Text: "what does greeting.txt say"}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "I'll read it."},
			{Type: llm.BlockToolUse, ID: "t1", Name: "read_file", Input: []byte(`{"file_path":"greeting.txt"}`)}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: "t1", Content: "hello"}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "It says **hello**."}}},
		llm.UserText("and the other file?"),
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "There is none."}}},
		llm.UserText("thanks"),
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "You're welcome."}}},
	}
	if code := Run(context.Background(), rg.opts); code != ExitOK {
		t.Fatalf("exit code %d", code)
	}
	out := rg.out.String()
	for _, want := range []string{
		"› what does greeting.txt say\nI'll read it.\n● read_file greeting.txt\nIt says **hello**.\n",
		"› thanks\nYou're welcome.\n(2 earlier messages not shown)\n",
		"Resumed session 01JOLDER (10 messages).",
		"Resume this session with: hew --resume 01JSESSION\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "nobody needs") {
		t.Errorf("transcript went back further than 3 exchanges:\n%s", out)
	}
	if n := strings.Count(out, "› thanks"); n != 2 { // at start (like -c) and after /resume
		t.Errorf("transcript drawn %d times, want 2", n)
	}
}

// While a loop waits for its next round the prompt works: "/loop stop"
// ends the loop before the next round.
func TestLoopStop(t *testing.T) {
	rg := newRig(strings.NewReader("/loop 1m tick\n/loop stop\n/loop stop\n"))
	Run(context.Background(), rg.opts)
	out := rg.out.String()
	if got := rg.ag.gotPrompts(); !slices.Equal(got, []string{"tick"}) {
		t.Fatalf("prompts %q", got)
	}
	if !strings.Contains(out, "Loop stopped.") || !strings.Contains(out, "No loop is running.") || !strings.Contains(out, "/loop stop or Ctrl+C stops the loop") {
		t.Fatalf("out:\n%s", out)
	}
}
