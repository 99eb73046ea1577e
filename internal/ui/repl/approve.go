package repl

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
)

// Approver asks the user about tool calls the permission engine sends to
// "ask". It shows the tool, the exact command or path and any diff, then
// takes one keypress on a terminal (y, n, a) or one line from a pipe
// (y/yes, a/always, anything else is no). Ctrl+C or Esc at the question is
// no. Questions are asked one at a time.
type Approver struct {
	s  *term.Streams
	r  *render.Renderer
	mu sync.Mutex
}

// NewApprover returns an Approver reading from s and drawing with r; pass
// it both to agent.Config.Approver and to Options.Approver.
func NewApprover(s *term.Streams, r *render.Renderer) *Approver {
	return &Approver{s: s, r: r}
}

// Approve implements agent.Approver.
func (a *Approver) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return agent.ApproveDeny, "the turn was interrupted"
	}
	a.r.ShowApproval(req)
	ans, why := a.answer(ctx)
	a.r.Answered(ans)
	return ans, why
}

func (a *Approver) answer(ctx context.Context) (agent.Approval, string) {
	if a.s.InTTY && a.s.StdinIsOS() {
		for {
			key, err := a.s.ReadKey(ctx)
			if err != nil {
				return agent.ApproveDeny, interruptedWhy(err)
			}
			switch strings.ToLower(key) {
			case "y":
				return agent.ApproveOnce, ""
			case "a":
				return agent.ApproveSession, ""
			case "n", "\x03", "\x04", "\x1b":
				return agent.ApproveDeny, "the user said no"
			}
		}
	}
	line, err := a.s.ReadLine(ctx)
	if err != nil {
		return agent.ApproveDeny, interruptedWhy(err)
	}
	return parseAnswer(line)
}

// parseAnswer reads a typed answer; anything unclear is a no.
func parseAnswer(line string) (agent.Approval, string) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return agent.ApproveOnce, ""
	case "a", "always", "session":
		return agent.ApproveSession, ""
	}
	return agent.ApproveDeny, "the user said no"
}

func interruptedWhy(err error) string {
	if errors.Is(err, io.EOF) {
		return "no answer: input ended"
	}
	return "the turn was interrupted"
}
