package core

import (
	"context"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	wakeuptool "github.com/hew-dev/hew/internal/tools/wakeup"
)

// SkillCommand is a user-invocable skill, runnable as /NAME ARGS.
type SkillCommand struct {
	Name, Description, Source string
}

// Skills lists the user-invocable skills (/skills).
func (s *Session) Skills() []SkillCommand {
	var out []SkillCommand
	for _, sk := range s.o.Skills {
		if sk.UserInvocable {
			out = append(out, SkillCommand{Name: sk.Name, Description: sk.Description, Source: skillSource(sk)})
		}
	}
	return out
}

// RunSkill runs /NAME ARGS as Submit does for a headless prompt (the
// skill's expanded text, or a fork skill's sub-agent); ok is false when no
// user-invocable skill has that name (nothing is sent).
func (s *Session) RunSkill(ctx context.Context, name, args string) (res agent.TurnResult, ok bool) {
	sk, found := s.findSkill(name)
	if !found {
		return agent.TurnResult{}, false
	}
	return s.Submit(ctx, strings.TrimSpace("/"+sk.Name+" "+args)), true
}

// Goal works toward cond until an evaluator judges it met, impossible, or
// a limit ends it (/goal CONDITION).
func (s *Session) Goal(ctx context.Context, cond string) agent.TurnResult {
	s.mu.Lock()
	s.goal = cond
	s.mu.Unlock()
	return s.Submit(ctx, "Work toward this goal: "+cond)
}

// LoopRound runs one round of /loop dynamic: schedule_wakeup becomes
// visible, and whatever wake-up the model asks for decides the next round;
// again is false when it scheduled none or the round did not complete.
func (s *Session) LoopRound(ctx context.Context, prompt string) (wait time.Duration, reason string, again bool) {
	s.o.Registry.Activate(wakeuptool.Name)
	s.wakeup.Begin()
	res := s.Submit(ctx, prompt+"\n\n(This is one round of a dynamic loop. If the task needs another look later, end the round by calling schedule_wakeup with the delay; if it is done, do not call it.)")
	w, ok := s.wakeup.Take()
	if res.StopReason != agent.StopCompleted {
		return 0, "", false
	}
	return w.Delay, w.Reason, ok
}
