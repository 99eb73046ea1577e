package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/tools"
)

// events collects what a session emits, safe to read while it runs.
type events struct {
	mu   sync.Mutex
	list []agent.Event
}

func (e *events) add(ev agent.Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.mu.Unlock()
}

func (e *events) names() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.list {
		out = append(out, agent.EventName(ev))
	}
	return out
}

type rig struct {
	root, home string
	prov       *agenttest.Provider
	ev         *events
}

func newRig(t *testing.T, steps ...agenttest.Step) *rig {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Use tabs.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &rig{root: root, home: t.TempDir(), prov: agenttest.NewProvider(steps...), ev: &events{}}
}

func (r *rig) options() Options {
	return Options{
		Root: r.root, HewHome: r.home, HomeDir: r.home,
		Provider: r.prov, ProviderName: "agenttest", Model: "test-model",
		NewProvider: func(model string) (llm.Provider, error) {
			if model == "broken" {
				return nil, errors.New("no key")
			}
			return r.prov, nil
		},
		Registry: tools.NewRegistry(),
		Emit:     r.ev.add,
		Version:  "test",
		Now:      func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) },
	}
}

func (r *rig) session(t *testing.T, edit func(*Options)) *Session {
	t.Helper()
	o := r.options()
	if edit != nil {
		edit(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func firstUserText(req *llm.Request) string {
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			return m.Text()
		}
	}
	return ""
}

// A turn sends the project instructions with the first message only, under
// the system prompt built at the first request, and is recorded so that a
// later session can resume it.
func TestSubmitRecordsAResumableConversation(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "first answer"}, agenttest.Step{Text: "second answer"})
	s := r.session(t, func(o *Options) { o.Notices = []string{"sandbox off"} })
	if got := s.TakeNotices(); !slices.Equal(got, []string{"sandbox off"}) {
		t.Fatalf("notices %q", got)
	}
	res := s.Submit(context.Background(), "hello")
	if res.StopReason != agent.StopCompleted || res.Text != "first answer" || res.SessionID != s.ID() {
		t.Fatalf("result %+v", res)
	}
	s.Submit(context.Background(), "again")
	reqs := r.prov.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if len(reqs[0].System) == 0 || !strings.Contains(reqs[0].System[len(reqs[0].System)-1].Text, "test-model") {
		t.Errorf("system prompt not set before the first request: %+v", reqs[0].System)
	}
	first := firstUserText(reqs[0])
	if !strings.Contains(first, "Use tabs.") || !strings.HasSuffix(first, "hello") {
		t.Errorf("first message lacks the project instructions: %q", first)
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1].Text(); last != "again" {
		t.Errorf("second message %q carries more than the prompt", last)
	}
	names := r.ev.names()
	if names[0] != "turn_started" || names[len(names)-1] != "turn_ended" {
		t.Errorf("events %q", names)
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	path, err := session.Find(r.home, id)
	if err != nil {
		t.Fatal(err)
	}
	r2 := newRig(t, agenttest.Step{Text: "third"})
	r2.root, r2.home = r.root, r.home
	s2 := r2.session(t, func(o *Options) { o.ResumePath = path })
	if s2.ID() != id || s2.Resumed() != 4 || len(s2.History()) != 4 {
		t.Fatalf("resumed id %s (want %s), %d messages", s2.ID(), id, s2.Resumed())
	}
	s2.Submit(context.Background(), "more")
	if got := r2.prov.Requests()[0].Messages; len(got) != 5 || got[4].Text() != "more" {
		t.Fatalf("resumed request %d messages, last %q", len(got), got[len(got)-1].Text())
	}
}

// Clear starts a new session: a new id, the old one stays resumable with
// its messages, and the next message carries the project instructions again.
func TestClearStartsANewSession(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "a"}, agenttest.Step{Text: "b"})
	env := &tools.Env{Root: r.root}
	s := r.session(t, func(o *Options) { o.Env = env })
	if prev := s.Clear(); prev != "" {
		t.Fatalf("clearing an empty session names %q as resumable", prev)
	}
	s.Submit(context.Background(), "one")
	oldID := s.ID()
	if prev := s.Clear(); prev != oldID {
		t.Fatalf("Clear returned %q, want %q", prev, oldID)
	}
	if s.ID() == oldID || env.SessionID != s.ID() {
		t.Fatalf("id after clear %s (old %s), tools see %s", s.ID(), oldID, env.SessionID)
	}
	if n := len(s.History()); n != 0 {
		t.Fatalf("history after clear: %d messages", n)
	}
	res := s.Submit(context.Background(), "two")
	if res.SessionID != s.ID() {
		t.Fatalf("turn reports session %s, want %s", res.SessionID, s.ID())
	}
	req := r.prov.Requests()[1]
	if len(req.Messages) != 1 || !strings.Contains(req.Messages[0].Text(), "Use tabs.") {
		t.Fatalf("after clear: %d messages, first %q", len(req.Messages), req.Messages[0].Text())
	}
	list, err := s.Sessions()
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	path, err := session.Find(r.home, oldID)
	if err != nil {
		t.Fatal(err)
	}
	old, err := session.Load(path)
	if err != nil || len(old.Messages) != 2 || !strings.HasSuffix(old.Messages[0].Text(), "one") {
		t.Fatalf("old session: %+v, %v", old, err)
	}
}

// A mode change reaches the model in the next message, not in the cached
// system prompt.
func TestModeChangeIsToldInTheNextMessage(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "a"}, agenttest.Step{Text: "b"})
	s := r.session(t, nil)
	s.Submit(context.Background(), "one")
	s.SetMode(permission.ModePlan)
	s.Submit(context.Background(), "two")
	reqs := r.prov.Requests()
	last := reqs[1].Messages[len(reqs[1].Messages)-1].Text()
	if !strings.Contains(last, string(permission.ModePlan)) || !strings.HasSuffix(last, "two") {
		t.Fatalf("message after /mode plan: %q", last)
	}
	if reqs[1].System[0].Text != reqs[0].System[0].Text {
		t.Fatal("the system prompt changed with the mode")
	}
}

// Resume loads another session of the project into the running one.
func TestResumeSwitchesConversation(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "old answer"}, agenttest.Step{Text: "new answer"}, agenttest.Step{Text: "after resume"})
	old := r.session(t, nil)
	old.Submit(context.Background(), "old question")
	oldID := old.ID()
	old.Close()

	s := r.session(t, nil)
	s.Submit(context.Background(), "new question")
	list, err := s.Sessions()
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	if err := s.Resume(context.Background(), oldID); err != nil {
		t.Fatal(err)
	}
	if s.ID() != oldID {
		t.Fatalf("id %s after resuming %s", s.ID(), oldID)
	}
	s.Submit(context.Background(), "follow-up")
	req := r.prov.Requests()[2]
	if len(req.Messages) != 3 || req.Messages[0].Text() == "" || !strings.HasSuffix(req.Messages[0].Text(), "old question") {
		t.Fatalf("resumed request: %d messages", len(req.Messages))
	}
	if err := s.Resume(context.Background(), "nonexistent"); err == nil {
		t.Fatal("resuming an unknown id succeeded")
	}
}

// Mode and model changes reach the next request; a model that cannot be
// built leaves the current one.
func TestSetModeAndModel(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "x"})
	s := r.session(t, nil)
	s.SetMode(permission.ModePlan)
	if s.Mode() != permission.ModePlan || s.Status().Mode != permission.ModePlan {
		t.Fatalf("mode %s", s.Mode())
	}
	if err := s.SetModel("broken"); err == nil || s.Model() != "test-model" {
		t.Fatalf("broken model: err %v, model %s", err, s.Model())
	}
	if err := s.SetModel("other-model"); err != nil {
		t.Fatal(err)
	}
	s.Submit(context.Background(), "go")
	if got := r.prov.Requests()[0].Model; got != "other-model" {
		t.Fatalf("request model %q", got)
	}
	st := s.Status()
	if st.Model != "other-model" || st.Provider != "agenttest" || st.ID != s.ID() || st.Usage.Total() == 0 {
		t.Fatalf("status %+v", st)
	}
}

// Interrupt stops a running turn as Ctrl+C does.
func TestInterruptStopsTheTurn(t *testing.T) {
	started := make(chan struct{})
	r := newRig(t, agenttest.Step{Text: "never", Before: func(ctx context.Context) { close(started); <-ctx.Done() }})
	s := r.session(t, nil)
	done := make(chan agent.TurnResult, 1)
	go func() { done <- s.Submit(context.Background(), "slow") }()
	<-started
	s.Interrupt()
	select {
	case res := <-done:
		if res.StopReason != agent.StopAborted {
			t.Fatalf("stop %s", res.StopReason)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not stop")
	}
	s.Interrupt() // between turns: nothing to stop
}

// /goal works until the evaluator says the condition holds.
func TestGoalEndsWhenMet(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "done, tests pass"})
	r.prov.Side = map[llm.Purpose]string{llm.PurposeGoalEval: `{"ok": true, "reason": "the transcript shows passing tests"}`}
	s := r.session(t, nil)
	res := s.Goal(context.Background(), "tests pass")
	if res.StopReason != agent.StopGoalMet {
		t.Fatalf("stop %s: %s", res.StopReason, res.Err)
	}
	if first := firstUserText(r.prov.Requests()[0]); !strings.Contains(first, "Keep working until this condition holds: tests pass") {
		t.Fatalf("goal prompt %q", first)
	}
}

// A dynamic loop round returns the wake-up the model scheduled.
func TestLoopRoundReturnsScheduledWakeup(t *testing.T) {
	r := newRig(t,
		agenttest.Step{Calls: []llm.Block{agenttest.Call("w1", "schedule_wakeup", `{"delay_seconds":120,"reason":"the deploy is running"}`)}},
		agenttest.Step{Text: "checked"},
		agenttest.Step{Text: "all done"},
	)
	s := r.session(t, nil)
	wait, reason, again := s.LoopRound(context.Background(), "watch the deploy")
	if !again || wait != 2*time.Minute || reason != "the deploy is running" {
		t.Fatalf("round 1: %s %q %v", wait, reason, again)
	}
	if _, _, again := s.LoopRound(context.Background(), "watch the deploy"); again {
		t.Fatal("round 2 scheduled a wake-up it did not ask for")
	}
}

// Skills run as their expanded text; memory is kept per project.
func TestSkillsAndMemory(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "reviewed"})
	s := r.session(t, func(o *Options) {
		o.Skills = []skills.Skill{
			{Name: "review", Description: "review a file", Source: "project", UserInvocable: true, Body: "Review $ARGUMENTS carefully."},
			{Name: "hidden", Description: "model only", Source: "user"},
		}
	})
	if got := s.Skills(); len(got) != 1 || got[0].Name != "review" {
		t.Fatalf("skills %+v", got)
	}
	if _, ok := s.RunSkill(context.Background(), "hidden", ""); ok {
		t.Fatal("a skill that is not user-invocable ran")
	}
	if _, ok := s.RunSkill(context.Background(), "REVIEW", "main.go"); !ok {
		t.Fatal("skill not found")
	}
	if first := firstUserText(r.prov.Requests()[0]); !strings.Contains(first, "main.go") || !strings.Contains(first, `The user ran the "review" skill`) || !strings.Contains(first, "Review main.go carefully.") {
		t.Fatalf("skill prompt %q", first)
	}
	where, err := s.Remember("the build needs Go 1.24")
	if err != nil || !strings.Contains(where, "recalled from the next message on") {
		t.Fatalf("remember: %q, %v", where, err)
	}
	list, err := s.Memory(context.Background(), "list")
	if err != nil || strings.Count(list, "the build needs Go 1.24") != 1 {
		t.Fatalf("memories %q, %v", list, err)
	}
}

// Without a provider there is no session.
func TestNewNeedsAProvider(t *testing.T) {
	r := newRig(t)
	o := r.options()
	o.Provider = nil
	if _, err := New(o); err == nil {
		t.Fatal("New without a provider succeeded")
	}
}

// Side requests count: a compaction summary and the goal evaluator add to
// the session's usage, so budgets, /cost and the result include them
// (issue 12.11). The scripted provider answers side purposes with 10 in, 5 out.
func TestSideRequestsAreCounted(t *testing.T) {
	var steps []agenttest.Step
	for i := 0; i < 6; i++ {
		steps = append(steps, agenttest.Step{Text: strings.Repeat("a long answer about the code. ", 200)})
	}
	r := newRig(t, append(steps, agenttest.Step{Text: "done, tests pass"})...)
	r.prov.Side = map[llm.Purpose]string{llm.PurposeCompact: "Summary: the user said hello.", llm.PurposeGoalEval: `{"ok": true, "reason": "ok"}`}
	s := r.session(t, nil)
	for i := 0; i < 6; i++ {
		s.Submit(context.Background(), strings.Repeat("tell me more about it. ", 200))
	}
	before, _ := s.Usage()
	if err := s.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Usage()
	if after.InputTokens != before.InputTokens+10 || after.OutputTokens != before.OutputTokens+5 {
		t.Fatalf("compaction summary not counted: %+v -> %+v", before, after)
	}
	res := s.Goal(context.Background(), "tests pass")
	final, _ := s.Usage()
	if final.InputTokens != after.InputTokens+100+10 || res.StopReason != agent.StopGoalMet {
		t.Fatalf("goal evaluator not counted: %+v -> %+v (%s)", after, final, res.StopReason)
	}
}

// An inline skill's model is used for the turn it starts, then the session
// goes back to its model.
func TestInlineSkillModel(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "done"}, agenttest.Step{Text: "again"})
	s := r.session(t, func(o *Options) {
		o.Skills = []skills.Skill{{Name: "quick", Description: "q", Source: "project", UserInvocable: true, Body: "Do it fast.", Model: "small-model", Context: skills.ContextInline}}
	})
	if res := s.Submit(context.Background(), "/quick now"); res.StopReason != agent.StopCompleted {
		t.Fatalf("%+v", res)
	}
	s.Submit(context.Background(), "next")
	reqs := r.prov.Requests()
	if reqs[0].Model != "small-model" || reqs[1].Model != "test-model" || s.Model() != "test-model" {
		t.Errorf("models %q then %q, now %q", reqs[0].Model, reqs[1].Model, s.Model())
	}
}
