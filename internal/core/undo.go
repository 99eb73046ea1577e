package core

import (
	"errors"
	"fmt"

	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/session"
)

// errNoCheckpoints is returned when checkpoints are off for this session.
var errNoCheckpoints = errors.New("checkpoints are off for this session (settings: checkpoints.enabled)")

// Checkpoints lists this session's turns that changed files, oldest first.
func (s *Session) Checkpoints() ([]*checkpoint.Turn, error) {
	if s.ckpt == nil {
		return nil, errNoCheckpoints
	}
	return s.ckpt.Store().Turns(s.ID())
}

// PlanUndo works out taking back the file changes of the last n turns of
// this session that are not undone yet; nothing is written until the plan
// is applied (checkpoint.Plan.Apply).
func (s *Session) PlanUndo(n int, force bool) (*checkpoint.Plan, error) {
	if s.ckpt == nil {
		return nil, errNoCheckpoints
	}
	return s.ckpt.Store().PlanUndo(s.ID(), n, force)
}

// RewindPoint is one user message /rewind can go back to: the prompt, where
// it stands in the history and, when that turn changed files, its
// checkpoint.
type RewindPoint struct {
	Prompt string
	// Index is the position of the user message in the history.
	Index int
	// Turn is the checkpointed turn the message started, if it changed files.
	Turn *checkpoint.Turn
}

// RewindPoints lists the user messages of the conversation, oldest first,
// each with the checkpoint of the turn it started (matched by prompt, in
// order).
func (s *Session) RewindPoints() ([]RewindPoint, error) {
	var turns []*checkpoint.Turn
	if s.ckpt != nil {
		var err error
		if turns, err = s.ckpt.Store().Turns(s.ID()); err != nil {
			return nil, err
		}
	}
	var out []RewindPoint
	next := 0
	for i, m := range s.agent.History() {
		text, ok := userText(m)
		if !ok {
			continue
		}
		p := RewindPoint{Prompt: checkpoint.StripReminders(text), Index: i}
		for j := next; j < len(turns); j++ {
			if turns[j].Prompt == text {
				p.Turn, next = turns[j], j+1
				break
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// userText is the text of a message the user typed (not tool results).
func userText(m llm.Message) (string, bool) {
	if m.Role != llm.RoleUser || len(m.Content) == 0 {
		return "", false
	}
	text := ""
	for _, b := range m.Content {
		if b.Type != llm.BlockText {
			return "", false
		}
		text += b.Text
	}
	return text, true
}

// PlanRewindCode works out putting the files back as they were before the
// turn of point p: every checkpointed turn from it on that is not undone yet.
func (s *Session) PlanRewindCode(p RewindPoint, force bool) (*checkpoint.Plan, error) {
	if s.ckpt == nil {
		return nil, errNoCheckpoints
	}
	points, err := s.RewindPoints()
	if err != nil {
		return nil, err
	}
	first := 0
	for _, q := range points {
		if q.Index >= p.Index && q.Turn != nil {
			first = q.Turn.Seq
			break
		}
	}
	turns, err := s.ckpt.Store().Turns(s.ID())
	if err != nil {
		return nil, err
	}
	n := 0
	for _, t := range turns {
		if first > 0 && !t.Undone && t.Seq >= first {
			n++
		}
	}
	if n == 0 {
		return s.ckpt.Store().EmptyPlan(s.ID()), nil
	}
	return s.ckpt.Store().PlanUndo(s.ID(), n, force)
}

// RewindConversation drops the conversation from point p's user message on,
// recording the shorter history in the session file (a reset record), so a
// resume sees the same. The history left ends at a turn boundary, so every
// tool_use in it keeps its tool_result.
func (s *Session) RewindConversation(p RewindPoint) error {
	h := s.agent.History()
	if p.Index < 0 || p.Index >= len(h) {
		return fmt.Errorf("rewind: no message %d in this conversation", p.Index)
	}
	if text, ok := userText(h[p.Index]); !ok || checkpoint.StripReminders(text) != p.Prompt {
		return errors.New("rewind: the conversation changed since the list was made; run /rewind again")
	}
	kept := append([]llm.Message(nil), h[:p.Index]...)
	s.agent.SetHistory(kept)
	s.rec.Record(session.KindReset, kept)
	s.ctxMgr.Reset()
	if p.Index == 0 {
		s.mu.Lock()
		s.firstTurn = true
		s.mu.Unlock()
	}
	return nil
}
