package core

import (
	"context"

	"github.com/hew-dev/hew/internal/agent"
)

// queuePlan is plantool.Options.ClearAndRun: the approved plan is carried out
// in a fresh conversation once the current turn has ended.
func (s *Session) queuePlan(plan, path string) {
	s.mu.Lock()
	s.pendingPlan = "Carry out this plan, approved by the user (saved at " + path + "), step by step, and verify the result as it says:\n\n" + plan
	s.mu.Unlock()
}

// runPendingPlan follows a turn in which the user chose "execute after
// clearing the context": the conversation starts afresh (a new session
// file; the planning one stays resumable) with the plan as its first
// message. Other turns pass through.
func (s *Session) runPendingPlan(ctx context.Context, res agent.TurnResult) agent.TurnResult {
	s.mu.Lock()
	next := s.pendingPlan
	s.pendingPlan = ""
	s.mu.Unlock()
	if next == "" || res.StopReason != agent.StopCompleted || ctx.Err() != nil {
		return res
	}
	prev := s.Clear()
	s.emit(agent.Notice{Level: "info", Text: "context cleared for the plan (the planning session " + prev + " stays resumable); carrying it out"})
	return mergeResults(res, s.agent.Run(ctx, s.userPrompt(next)))
}
