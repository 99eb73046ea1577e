package core

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

// fakeClock moves on by step each time it is read.
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// goalSession works on a goal the evaluator never judges met.
func goalSession(t *testing.T, b GoalBudget, clock *fakeClock) *Session {
	t.Helper()
	sc, err := scenario.Parse([]byte(`{"turns": [{"text": "r1"}, {"text": "r2"}, {"text": "r3"}, {"text": "r4"}, {"text": "r5"}],
	  "side": {"goal_eval": "{\"ok\": false, \"reason\": \"tests still fail\"}"}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	return r.session(t, func(o *Options) {
		o.Provider = mock.New(sc)
		o.GoalBudget = b
		if clock != nil {
			o.Now = clock.Now
		}
	})
}

// Each goal budget ends the goal with its own stop reason and says which.
func TestGoalBudgets(t *testing.T) {
	tests := []struct {
		name   string
		budget GoalBudget
		clock  *fakeClock
		stop   agent.StopReason
		why    string
		rounds int
	}{
		{"rounds", GoalBudget{MaxRounds: 2}, nil, agent.StopMaxTurns, "goal not met after 2 rounds (the goal's limit): tests still fail", 2},
		{"tokens", GoalBudget{MaxTokens: 1}, nil, agent.StopMaxBudget, "goal token budget of 1 used up", 1},
		{"wall time", GoalBudget{MaxWall: 25 * time.Minute}, &fakeClock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), step: 10 * time.Minute}, agent.StopMaxBudget, "goal wall-time budget of 25m0s used up", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := goalSession(t, tc.budget, tc.clock)
			var during GoalStatus
			s.o.Emit = func(e agent.Event) {
				if n, ok := e.(agent.Notice); ok && strings.HasPrefix(n.Text, "goal check") {
					during, _ = s.GoalStatus()
				}
			}
			res := s.Goal(context.Background(), "make the tests pass")
			if res.StopReason != tc.stop || !strings.Contains(res.Err, tc.why) {
				t.Fatalf("stop %s %q, want %s %q", res.StopReason, res.Err, tc.stop, tc.why)
			}
			if res.RoundTrips != tc.rounds {
				t.Errorf("%d rounds, want %d", res.RoundTrips, tc.rounds)
			}
			if during.Condition != "make the tests pass" || during.Round < 1 || during.Tokens <= 0 {
				t.Errorf("status during the goal: %+v", during)
			}
			if _, active := s.GoalStatus(); active {
				t.Error("the goal is still reported after it ended")
			}
		})
	}
}

func TestLoopLimitsAndStatus(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	s := goalSession(t, GoalBudget{}, clock)
	s.o.LoopBudget = LoopBudget{MaxIterations: 3}
	s.LoopStarted()
	if ok, _ := s.LoopNext(1, 5*time.Minute, "CI still running"); !ok {
		t.Fatal("round 1 ended the loop")
	}
	st, ok := s.LoopStatus()
	if !ok || st.Round != 1 || st.MaxIterations != 3 || st.Reason != "CI still running" || !st.NextWake.Equal(time.Date(2026, 12, 1, 9, 5, 0, 0, time.UTC)) {
		t.Fatalf("status %+v", st)
	}
	rows := s.autonomyRows()
	if len(rows) != 1 || rows[0][0] != "loop" || !strings.Contains(rows[0][1], "round 1 of 3 · next wake-up") {
		t.Errorf("rows %q", rows)
	}
	s.LoopNext(2, time.Minute, "")
	if ok, why := s.LoopNext(3, time.Minute, ""); ok || !strings.Contains(why, "limit of 3 rounds") {
		t.Fatalf("round 3: %v %q", ok, why)
	}
	if _, ok := s.LoopStatus(); ok {
		t.Error("an ended loop is still reported")
	}
}

// The wall-time budget also stops a round in progress.
func TestGoalWallTimeStopsARunningRound(t *testing.T) {
	r := newRig(t, agenttest.Step{Text: "never", Before: func(ctx context.Context) { <-ctx.Done() }})
	s := r.session(t, func(o *Options) { o.GoalBudget = GoalBudget{MaxWall: 50 * time.Millisecond} })
	res := s.Goal(context.Background(), "finish")
	if res.StopReason != agent.StopMaxBudget || !strings.Contains(res.Err, "wall-time budget of 50ms used up during round 1") {
		t.Fatalf("%s %q", res.StopReason, res.Err)
	}
}
