package repl

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"unicode"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
)

// Approver asks the user about tool calls the permission engine sends to
// "ask". It shows the tool, the exact command or path and any diff, then
// takes one keypress on a terminal — y yes once; a yes and don't ask again
// (saves the scoped rule shown, or covers the session when there is none);
// s yes for this session; n no; m no with a message for the model, typed
// and ended with Enter — or one line from a pipe (y/yes, a/always,
// s/session, "m TEXT" or "no: TEXT"; anything else is no). In the REPL, Esc or Ctrl+C at the
// question stops the whole turn (the REPL cancels it; the question then
// answers no). Questions are asked one at a time.
type Approver struct {
	s  *term.Streams
	r  *render.Renderer
	mu sync.Mutex

	// While the REPL runs on a terminal it owns the keyboard and hands
	// keys to an open question through inbox (see offer).
	qmu   sync.Mutex
	keyed bool
	inbox chan key

	pending []key // keys read from the terminal but not used yet
}

// useKeys switches between reading keys from the terminal itself and
// taking them from the REPL's keyboard (offer).
func (a *Approver) useKeys(on bool) {
	a.qmu.Lock()
	defer a.qmu.Unlock()
	a.keyed = on
}

// offer gives a key to the open question; false when none is open.
func (a *Approver) offer(k key) bool {
	a.qmu.Lock()
	defer a.qmu.Unlock()
	if a.inbox == nil {
		return false
	}
	select {
	case a.inbox <- k:
	default: // keys beyond a few while the question is open are dropped
	}
	return true
}

// open gives the question an inbox for the REPL's keys for as long as it
// is open (the answer key, then a typed message), so keys typed quickly
// are not lost between reads; the returned function closes it.
func (a *Approver) open() func() {
	a.qmu.Lock()
	defer a.qmu.Unlock()
	if !a.keyed {
		return func() {}
	}
	a.inbox = make(chan key, 256)
	return func() {
		a.qmu.Lock()
		a.inbox = nil
		a.qmu.Unlock()
	}
}

// readKey waits for one key of the answer: from the question's inbox when
// the REPL owns the keyboard, else from the terminal (a read that brings
// several keys keeps the rest for the next call).
func (a *Approver) readKey(ctx context.Context) (key, error) {
	a.qmu.Lock()
	keyed, inbox := a.keyed, a.inbox
	a.qmu.Unlock()
	if !keyed {
		if len(a.pending) > 0 {
			k := a.pending[0]
			a.pending = a.pending[1:]
			return k, nil
		}
		raw, err := a.s.ReadKey(ctx)
		if err != nil {
			return key{}, err
		}
		b := []byte(raw)
		for len(b) > 0 {
			k, n := decodeKey(b, true)
			if n <= 0 {
				break
			}
			a.pending = append(a.pending, k)
			b = b[n:]
		}
		if len(a.pending) == 0 {
			return key{}, nil
		}
		k := a.pending[0]
		a.pending = a.pending[1:]
		return k, nil
	}
	if inbox == nil {
		return key{}, errors.New("no question is open")
	}
	select {
	case k := <-inbox:
		return k, nil
	case <-ctx.Done():
		return key{}, ctx.Err()
	}
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
	closeInbox := a.open()
	defer closeInbox()
	a.pending = nil
	a.r.ShowApproval(req)
	ans, why := a.answer(ctx, req)
	a.r.Answered(ans)
	return ans, why
}

// always is the answer to "a": save the rule when there is one.
func always(req agent.ApprovalRequest) agent.Approval {
	if req.Suggest != "" {
		return agent.ApproveAlways
	}
	return agent.ApproveSession
}

// message reads the user's message for the model, up to Enter; Esc or an
// empty message is a plain no.
func (a *Approver) message(ctx context.Context) (agent.Approval, string) {
	a.r.AskMessage()
	var b []rune
	for {
		k, err := a.readKey(ctx)
		if err != nil {
			return agent.ApproveDeny, interruptedWhy(err)
		}
		switch {
		case k.kind == kEnter:
			a.r.Typed(" · ")
			if msg := strings.TrimSpace(string(b)); msg != "" {
				return agent.ApproveDeny, msg
			}
			return agent.ApproveDeny, "the user said no"
		case k.isStop():
			return agent.ApproveDeny, "the user said no"
		case k.kind == kBackspace && len(b) > 0:
			w := max(render.Width(string(b[len(b)-1])), 1) // a wide character takes two columns back
			b = b[:len(b)-1]
			a.r.Typed(strings.Repeat("\b \b", w))
		case k.kind == kRune:
			b = append(b, k.r)
			a.r.Typed(string(k.r))
		case k.kind == kPaste:
			b = append(b, []rune(k.text)...)
			a.r.Typed(k.text)
		}
	}
}

func (a *Approver) answer(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, string) {
	if a.s.InTTY && a.s.StdinIsOS() {
		for {
			k, err := a.readKey(ctx)
			if err != nil {
				return agent.ApproveDeny, interruptedWhy(err)
			}
			if k.isStop() || k.kind == kCtrl && k.r == 'd' {
				return agent.ApproveDeny, "the user said no"
			}
			if k.kind != kRune {
				continue
			}
			switch unicode.ToLower(k.r) {
			case 'y':
				return agent.ApproveOnce, ""
			case 'a':
				return always(req), ""
			case 's':
				return agent.ApproveSession, ""
			case 'n':
				return agent.ApproveDeny, "the user said no"
			case 'm':
				return a.message(ctx)
			}
		}
	}
	line, err := a.s.ReadLine(ctx)
	if err != nil {
		return agent.ApproveDeny, interruptedWhy(err)
	}
	return parseAnswer(line, req)
}

// parseAnswer reads a typed answer; anything unclear is a no.
func parseAnswer(line string, req agent.ApprovalRequest) (agent.Approval, string) {
	t := strings.TrimSpace(line)
	switch strings.ToLower(t) {
	case "y", "yes":
		return agent.ApproveOnce, ""
	case "a", "always":
		return always(req), ""
	case "s", "session":
		return agent.ApproveSession, ""
	}
	for _, p := range []string{"m ", "no: ", "n: ", "no, "} {
		if len(t) > len(p) && strings.EqualFold(t[:len(p)], p) {
			if msg := strings.TrimSpace(t[len(p):]); msg != "" {
				return agent.ApproveDeny, msg
			}
		}
	}
	return agent.ApproveDeny, "the user said no"
}

func interruptedWhy(err error) string {
	if errors.Is(err, io.EOF) {
		return "no answer: input ended"
	}
	return "the turn was interrupted"
}
