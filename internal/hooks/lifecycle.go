package hooks

import (
	"context"
	"encoding/json"

	"github.com/hew-dev/hew/internal/agent"
)

// lifecycleEvents are the events around a session and its turns, as
// opposed to one tool call.
var lifecycleEvents = []string{"UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd"}

var _ agent.StopHooks = (*Runner)(nil)

// eventPayload is Claude Code's hook input for the lifecycle events.
type eventPayload struct {
	SessionID          string  `json:"session_id"`
	TranscriptPath     string  `json:"transcript_path,omitempty"`
	Cwd                string  `json:"cwd"`
	Event              string  `json:"hook_event_name"`
	Prompt             string  `json:"prompt,omitempty"`
	StopHookActive     *bool   `json:"stop_hook_active,omitempty"`
	Trigger            string  `json:"trigger,omitempty"`
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	Source             string  `json:"source,omitempty"`
	Reason             string  `json:"reason,omitempty"`
}

// UserPromptSubmit runs before a user message reaches the model. A hook may
// refuse the prompt (exit 2, or "decision": "block") or add context (its
// plain stdout, or additionalContext). It can block, so a hook that crashes,
// hangs or prints a broken JSON answer blocks the prompt (fail closed).
func (r *Runner) UserPromptSubmit(ctx context.Context, sessionID, prompt string) agent.HookOutcome {
	return r.lifecycle(ctx, eventPayload{Event: "UserPromptSubmit", SessionID: sessionID, Prompt: prompt}, "", true)
}

// Stop runs when the model ends its answer (event Stop or SubagentStop). A
// hook may block the stop (exit 2 with a reason on stderr, or "decision":
// "block" with "reason"); the agent then goes on with that reason, a
// bounded number of times. A failing Stop hook is reported and the turn
// ends: going on is never the safe default.
func (r *Runner) Stop(ctx context.Context, event, sessionID string, active bool) agent.HookOutcome {
	out := r.lifecycle(ctx, eventPayload{Event: event, SessionID: sessionID, StopHookActive: &active}, "", false)
	out.AdditionalContext = ""
	return out
}

// PreCompact runs before the history is summarised; trigger is "manual"
// (/compact, whose focus is instructions) or "auto". It returns what to show
// the user; it cannot stop the compaction.
func (r *Runner) PreCompact(ctx context.Context, sessionID, trigger, instructions string) string {
	out := r.lifecycle(ctx, eventPayload{Event: "PreCompact", SessionID: sessionID, Trigger: trigger, CustomInstructions: &instructions}, trigger, false)
	return out.Message
}

// SessionStart runs when a session starts (source "startup", "resume",
// "clear" or "compact"); its plain stdout or additionalContext is given to
// the model with the first message.
func (r *Runner) SessionStart(ctx context.Context, sessionID, source string) agent.HookOutcome {
	out := r.lifecycle(ctx, eventPayload{Event: "SessionStart", SessionID: sessionID, Source: source}, source, false)
	out.Block, out.Stop = false, false
	return out
}

// SessionEnd runs when the session ends (reason "clear", "exit" or
// "other"); it cannot stop anything. It returns what to show the user.
func (r *Runner) SessionEnd(ctx context.Context, sessionID, reason string) string {
	return r.lifecycle(ctx, eventPayload{Event: "SessionEnd", SessionID: sessionID, Reason: reason}, reason, false).Message
}

// Has reports whether any hook is configured for event.
func (r *Runner) Has(event string) bool { return len(r.events[event]) > 0 }

// lifecycle runs the hooks of one lifecycle event in order. subject is what
// matchers are tried on (SessionStart's source, PreCompact's trigger); other
// events run every hook. canBlock selects fail-closed handling.
func (r *Runner) lifecycle(ctx context.Context, p eventPayload, subject string, canBlock bool) agent.HookOutcome {
	var out agent.HookOutcome
	list := r.events[p.Event]
	if len(list) == 0 {
		return out
	}
	p.Cwd = r.cwd
	payload, err := json.Marshal(p)
	if err != nil {
		return agent.HookOutcome{Block: canBlock, Reason: "hook input: " + err.Error()}
	}
	rules := verdictRules{failClosed: canBlock, blocked: "blocked", stopBlocks: true, plain: "ignored"}
	if p.Event == "UserPromptSubmit" || p.Event == "SessionStart" {
		rules.plain = "context"
	}
	for _, h := range list {
		if subject != "" && !h.match(subject) {
			continue
		}
		res := rules.interpret(h, r.exec(ctx, h, payload))
		out.Message = joinLines(out.Message, res.Message)
		out.AdditionalContext = joinLines(out.AdditionalContext, res.AdditionalContext)
		if res.Block {
			out.Block = true
			out.Reason = joinLines(out.Reason, res.Reason)
			if canBlock {
				return out
			}
		}
	}
	return out
}
