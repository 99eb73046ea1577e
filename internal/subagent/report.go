package subagent

import (
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// forward turns a child's events into what the parent's front-end should
// see: one-line notices for its tool calls, denials and notices, and its
// approval requests (so a spinner pauses before the approver asks). The
// child's text, usage and results stay out of the parent's stream; its
// report arrives as the tool result.
func (t *Runner) forward(parent func(agent.Event), label string) func(agent.Event) {
	if parent == nil {
		return nil
	}
	send := func(e agent.Event) {
		t.emitMu.Lock()
		defer t.emitMu.Unlock()
		parent(e)
	}
	return func(e agent.Event) {
		switch ev := e.(type) {
		case agent.ToolStarted:
			text := label + " › " + ev.Name
			if strings.HasPrefix(ev.Summary, ev.Name) {
				text = label + " › " + ev.Summary // the summary already names the tool
			} else if ev.Summary != "" {
				text += " " + ev.Summary
			}
			send(agent.Notice{Level: "info", Text: text})
		case agent.PermissionDecided:
			if ev.Decision == "deny" {
				send(agent.Notice{Level: "warn", Text: label + " › " + ev.Tool + " denied: " + ev.Reason})
			}
		case agent.Notice:
			send(agent.Notice{Level: ev.Level, Text: label + ": " + ev.Text})
		case agent.ApprovalRequest:
			send(ev)
		}
	}
}

// report renders the child's outcome as the result of the call that asked: the
// report itself, a note when the child stopped early, and one usage line.
func report(j job, res agent.TurnResult, text, missing string, maxTurns int, sidechain string) tools.Result {
	in := j.in
	var b strings.Builder
	isErr := false
	switch res.StopReason {
	case agent.StopCompleted:
	case agent.StopMaxTurns:
		fmt.Fprintf(&b, "The sub-agent hit its limit of %d round trips before finishing; its report may be incomplete.\n\n", maxTurns)
	case agent.StopMaxBudget:
		b.WriteString("The sub-agent stopped because the token or cost budget ran out; its report may be incomplete.\n\n")
	case agent.StopError:
		isErr = true
		fmt.Fprintf(&b, "The sub-agent failed: %s\n\n", strings.TrimSpace(res.Err))
	default:
		fmt.Fprintf(&b, "The sub-agent stopped (%s).\n\n", res.StopReason)
	}
	if text == "" {
		text = "(the sub-agent gave no final report)"
	}
	if missing != "" {
		fmt.Fprintf(&b, "Note: the %s sub-agent's report lacks %s.\n\n", j.role.Name, missing)
	}
	b.WriteString(text)
	b.WriteString("\n\n")
	line := usageLine(in, res)
	if j.role.Name == TypeVerify {
		v := ParseVerdict(text)
		if v == "" {
			v = "none given"
		}
		line = strings.TrimSuffix(line, "]") + ", verdict " + v + "]"
	}
	if sidechain != "" {
		line = strings.TrimSuffix(line, "]") + ", transcript " + sidechain + "]"
	}
	b.WriteString(line)
	return tools.Result{Content: b.String(), IsError: isErr}
}

// usageLine is the one-line account of a child run.
func usageLine(in Job, res agent.TurnResult) string {
	u := res.Usage
	cost := "cost unknown"
	if res.CostUSD >= 0 {
		cost = fmt.Sprintf("$%.4f", res.CostUSD)
	}
	line := fmt.Sprintf("[sub-agent %s: %s, %d round trips, %d tool calls, %d tokens (input %d, output %d, cache read %d, cache write %d), %s",
		in.Type, res.StopReason, res.RoundTrips, res.ToolCalls, u.Total(), u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, cost)
	if n := len(res.Denials); n > 0 {
		line += fmt.Sprintf(", %d calls denied", n)
	}
	return line + "]"
}

// lastAssistantText finds the child's latest words when the turn ended
// without a final answer (a limit stopped it).
func lastAssistantText(h []llm.Message) string {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role != llm.RoleAssistant {
			continue
		}
		var parts []string
		for _, b := range h[i].Content {
			if b.Type == llm.BlockText && strings.TrimSpace(b.Text) != "" {
				parts = append(parts, strings.TrimSpace(b.Text))
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	return ""
}
