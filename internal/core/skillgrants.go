package core

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/skills"
)

// skillGrants lets the calls an inline user skill lists in allowed-tools
// run without a question during the turn the skill started, as Claude Code
// does. Only skills from the user's own directories grant: a project's
// skill is the repository's word and never widens permissions. A deny, plan
// mode's bans and the floors still decide first: only an "ask" is turned
// into an allow.
type skillGrants struct {
	next agent.PermissionChecker

	mu     sync.Mutex
	name   string
	active *permission.Restriction
}

func (g *skillGrants) Check(req permission.Request) permission.Verdict {
	v := permission.Verdict{Decision: permission.Allow, Reason: "no permission engine", Source: "default"}
	if g.next != nil {
		v = g.next.Check(req)
	}
	if v.Decision != permission.Ask {
		return v
	}
	g.mu.Lock()
	r, name := g.active, g.name
	g.mu.Unlock()
	if r == nil {
		return v
	}
	if ok, _ := r.Permits(req.Tool, req.Input); ok {
		return permission.Verdict{Decision: permission.Allow, Reason: "listed in the allowed-tools of skill " + name, Source: "skill:" + name}
	}
	return v
}

func (g *skillGrants) Grant(tool string, input json.RawMessage) {
	if g.next != nil {
		g.next.Grant(tool, input)
	}
}

// start activates sk's allowed-tools for the turn, if it may grant.
func (g *skillGrants) start(sk skills.Skill, root, home string) {
	if sk.Source != "user" || len(sk.AllowedTools) == 0 {
		return
	}
	r, err := permission.NewRestriction(sk.AllowedTools, root, home)
	if err != nil {
		return
	}
	g.mu.Lock()
	g.name, g.active = sk.Name, r
	g.mu.Unlock()
}

// stop ends the grants when the turn ends.
func (g *skillGrants) stop() {
	g.mu.Lock()
	g.name, g.active = "", nil
	g.mu.Unlock()
}

// Remember implements agent.RuleSaver for the engine beneath, so "yes, and
// don't ask again" still saves its rule through this layer.
func (g *skillGrants) Remember(rule string) (string, error) {
	return remember(g.next, rule)
}

func remember(next agent.PermissionChecker, rule string) (string, error) {
	if s, ok := next.(agent.RuleSaver); ok {
		return s.Remember(rule)
	}
	return "", errors.New("this session cannot save permission rules")
}
