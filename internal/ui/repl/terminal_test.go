package repl

import (
	"context"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/term"
)

type onceSession struct {
	res    agent.TurnResult
	prompt string
}

func (o *onceSession) Submit(_ context.Context, text string) agent.TurnResult {
	o.prompt = text
	return o.res
}

// One task on the terminal: only a turn that did not finish its work says
// so on stderr, with the reason.
func TestTerminalRunOnce(t *testing.T) {
	for _, tc := range []struct {
		res    agent.TurnResult
		stderr string
	}{
		{agent.TurnResult{StopReason: agent.StopCompleted, Text: "done"}, ""},
		{agent.TurnResult{StopReason: agent.StopGoalMet}, ""},
		{agent.TurnResult{StopReason: agent.StopMaxTurns}, "hew: stopped: max_turns\n"},
		{agent.TurnResult{StopReason: agent.StopError, Err: "model said no"}, "hew: stopped: error: model said no\n"},
	} {
		s, _, _, errw := term.Test()
		sess := &onceSession{res: tc.res}
		got := NewTerminal(s, false, true).RunOnce(context.Background(), sess, "go")
		if got.StopReason != tc.res.StopReason || sess.prompt != "go" || errw.String() != tc.stderr {
			t.Errorf("%s: stderr %q, want %q (prompt %q)", tc.res.StopReason, errw.String(), tc.stderr, sess.prompt)
		}
	}
}

type bannerSession struct{ notices []string }

func (bannerSession) ProviderName() string    { return "mock" }
func (bannerSession) Model() string           { return "m1" }
func (bannerSession) Root() string            { return "/work/p" }
func (bannerSession) ID() string              { return "01abc" }
func (bannerSession) Resumed() int            { return 4 }
func (b bannerSession) TakeNotices() []string { return b.notices }

func TestBanner(t *testing.T) {
	for _, tc := range []struct {
		resumed bool
		notices []string
		want    string
	}{
		{false, nil, "hew 1 · mock m1 · /work/p"},
		{true, nil, "hew 1 · mock m1 · /work/p\nresumed session 01abc (4 messages)"},
		{false, []string{"sandbox off", "bad key"}, "hew 1 · mock m1 · /work/p\nwarning: sandbox off\nwarning: bad key"},
	} {
		if got := Banner("hew 1", bannerSession{tc.notices}, tc.resumed); got != tc.want {
			t.Errorf("Banner = %q, want %q", got, tc.want)
		}
	}
}
