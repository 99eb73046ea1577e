package core

import (
	"context"
	"strings"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/prompt"
)

// sessionHooks are the hooks of a session's life; the hook runner of
// Options.Hooks implements them (hooks.Runner does), fakes may not.
type sessionHooks interface {
	UserPromptSubmit(ctx context.Context, sessionID, prompt string) agent.HookOutcome
	SessionStart(ctx context.Context, sessionID, source string) agent.HookOutcome
	SessionEnd(ctx context.Context, sessionID, reason string) string
	PreCompact(ctx context.Context, sessionID, trigger, instructions string) string
}

func (s *Session) lifeHooks() sessionHooks {
	h, _ := s.o.Hooks.(sessionHooks)
	return h
}

// promptHook runs the UserPromptSubmit hooks on a user message. It returns
// the message with any context they added, or why a hook refused it.
func (s *Session) promptHook(ctx context.Context, text string) (string, string) {
	h := s.lifeHooks()
	if h == nil {
		return text, ""
	}
	out := h.UserPromptSubmit(ctx, s.ID(), text)
	s.hookMessage(out.Message)
	if out.Block {
		return "", "prompt blocked by a UserPromptSubmit hook: " + out.Reason
	}
	if c := strings.TrimSpace(out.AdditionalContext); c != "" {
		text += "\n\n<user-prompt-submit-hook>\n" + c + "\n</user-prompt-submit-hook>"
	}
	return text, ""
}

// sessionStart runs the SessionStart hooks (source: startup, resume,
// clear); the context they add rides with the next user message.
func (s *Session) sessionStart(ctx context.Context, source string) {
	h := s.lifeHooks()
	if h == nil {
		return
	}
	out := h.SessionStart(ctx, s.ID(), source)
	s.hookMessage(out.Message)
	if c := strings.TrimSpace(out.AdditionalContext); c != "" {
		s.mu.Lock()
		s.hookContext = strings.TrimSpace(s.hookContext + "\n" + c)
		s.mu.Unlock()
	}
}

// sessionEnd runs the SessionEnd hooks (reason: clear, other).
func (s *Session) sessionEnd(reason string) {
	if h := s.lifeHooks(); h != nil {
		s.hookMessage(h.SessionEnd(context.Background(), s.ID(), reason))
	}
}

// preCompact runs the PreCompact hooks before a summary (trigger: manual
// or auto; focus is /compact's).
func (s *Session) preCompact(ctx context.Context, trigger, focus string) {
	if h := s.lifeHooks(); h != nil {
		s.hookMessage(h.PreCompact(ctx, s.ID(), trigger, focus))
	}
}

func (s *Session) hookMessage(m string) {
	if m = strings.TrimSpace(m); m != "" {
		s.emit(agent.Notice{Level: "info", Text: m})
	}
}

// withHookContext puts what SessionStart hooks added before p, once.
func (s *Session) withHookContext(p string) string {
	s.mu.Lock()
	c := s.hookContext
	s.hookContext = ""
	s.mu.Unlock()
	if c == "" {
		return p
	}
	return prompt.WithReminder("<session-start-hook>\n"+c+"\n</session-start-hook>", p)
}

// Stop passes the Stop hooks through the memory capture wrapper.
func (c captureHooks) Stop(ctx context.Context, event, sessionID string, active bool) agent.HookOutcome {
	if sh, ok := c.HookRunner.(agent.StopHooks); ok {
		return sh.Stop(ctx, event, sessionID, active)
	}
	return agent.HookOutcome{}
}
