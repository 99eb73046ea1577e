package core

import (
	"context"
	"fmt"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/sandbox"
)

// askDomain puts a domain the sandbox's proxy does not know to the user,
// as an approval like any other. With nobody to ask (headless) or in
// dontAsk mode it is refused and listed.
func (s *Session) askDomain(ctx context.Context, q netproxy.Question) netproxy.Answer {
	ap := s.o.Approver
	if ap == nil || s.Mode() == permission.ModeDontAsk {
		return netproxy.NobodyToAsk
	}
	req := agent.ApprovalRequest{
		Tool:    "network",
		Subject: fmt.Sprintf("%s:%d", q.Host, q.Port),
		Reason:  fmt.Sprintf("the command `%s` connects to %s, which is not in sandbox.allowedDomains", q.Command, q.Host),
		Suggest: fmt.Sprintf("sandbox.allowedDomains %q", q.Host),
	}
	s.emit(req)
	ans, _ := ap.Approve(ctx, req)
	switch ans {
	case agent.ApproveOnce:
		return netproxy.AllowOnce
	case agent.ApproveSession:
		return netproxy.AllowSession
	case agent.ApproveAlways:
		file, err := sandbox.AllowInProject(config.Paths{Home: s.o.HewHome, Project: s.o.Root, UserHome: s.o.HomeDir}, q.Host)
		if err != nil {
			s.emit(agent.Notice{Level: "warn", Text: "could not save " + q.Host + " to sandbox.allowedDomains: " + err.Error() + "; allowed for this session"})
			return netproxy.AllowSession
		}
		s.emit(agent.Notice{Level: "info", Text: "saved " + q.Host + " to sandbox.allowedDomains in " + file + "; it will not ask again"})
		return netproxy.AllowAlways
	}
	return netproxy.Deny
}

// sandboxNotice tells the user what the sandbox blocked.
func (s *Session) sandboxNotice(text string) { s.emit(agent.Notice{Level: "warn", Text: text}) }
