package subagent

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// narrowed refuses some calls before the session's own permission checks,
// which still decide the rest: a child may do less than its parent, never
// more. Grants and saved rules go to the checker beneath.
type narrowed struct {
	next agent.PermissionChecker
	// refuse says why a call is refused, or "" to pass it on.
	refuse func(permission.Request) string
	source string
}

func (c narrowed) Check(req permission.Request) permission.Verdict {
	if why := c.refuse(req); why != "" {
		return permission.Verdict{Decision: permission.Deny, Reason: why, Source: c.source}
	}
	if c.next == nil {
		return permission.Verdict{Decision: permission.Allow, Reason: "no permission engine", Source: "default"}
	}
	return c.next.Check(req)
}

func (c narrowed) Grant(tool string, input json.RawMessage) {
	if c.next != nil {
		c.next.Grant(tool, input)
	}
}

// Remember implements agent.RuleSaver for the checker beneath, so "yes, and
// don't ask again" in a sub-agent still saves its rule.
func (c narrowed) Remember(rule string) (string, error) {
	if s, ok := c.next.(agent.RuleSaver); ok {
		return s.Remember(rule)
	}
	return "", errors.New("this session cannot save permission rules")
}

// restricted refuses calls a role's tool list does not cover.
func restricted(next agent.PermissionChecker, r *permission.Restriction) narrowed {
	return narrowed{next: next, source: "subagent-tools", refuse: func(req permission.Request) string {
		if ok, why := r.Permits(req.Tool, req.Input); !ok {
			return why
		}
		return ""
	}}
}

// onlyTools refuses calls of tools outside a role's fixed set.
func onlyTools(next agent.PermissionChecker, names []string) narrowed {
	return narrowed{next: next, source: "subagent-tools", refuse: func(req permission.Request) string {
		if slices.Contains(names, req.Tool) {
			return ""
		}
		list := strings.Join(names, ", ")
		if list == "" {
			list = "none"
		}
		return req.Tool + " is not in the allowed tools (" + list + ")"
	}}
}

// mainAgentOnly refuses, in a fork, the tools only the main agent may use
// (tools.MainAgentOnly: from, the agent tool that started it; plan mode;
// the loop's schedule), whose entries the tool list must still show (the
// list is the parent's, byte for byte, so the prompt cache is shared).
func mainAgentOnly(next agent.PermissionChecker, reg *tools.Registry, from string) narrowed {
	return narrowed{next: next, source: "subagent-fork", refuse: func(req permission.Request) string {
		tl, ok := reg.Get(req.Tool)
		switch {
		case !ok || !tools.IsMainAgentOnly(tl):
			return ""
		case req.Tool == from:
			return "a forked sub-agent cannot start sub-agents; do the work yourself"
		}
		return req.Tool + " acts on the main conversation, which a forked sub-agent cannot change; report back instead"
	}}
}
