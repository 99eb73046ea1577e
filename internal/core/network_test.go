package core

import (
	"context"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/permission"
)

// fakeApprover answers domain questions and keeps them.
type fakeApprover struct {
	answer agent.Approval
	asked  []agent.ApprovalRequest
}

func (f *fakeApprover) Approve(_ context.Context, r agent.ApprovalRequest) (agent.Approval, string) {
	f.asked = append(f.asked, r)
	return f.answer, ""
}

// An unknown domain is an approval like any other; "don't ask again"
// saves it to sandbox.allowedDomains, which the next session loads.
func TestDomainApproval(t *testing.T) {
	r := newRig(t)
	root, home := r.root, r.home
	s := r.session(t, nil)
	if a := s.askDomain(context.Background(), netproxy.Question{Host: "unknown.test", Port: 443, Command: "npm install"}); a != netproxy.NobodyToAsk {
		t.Errorf("headless answer %v", a)
	}
	ap := &fakeApprover{answer: agent.ApproveOnce}
	s = r.session(t, func(o *Options) { o.Approver = ap })
	r.ev.mu.Lock()
	r.ev.list = nil
	r.ev.mu.Unlock()
	if a := s.askDomain(context.Background(), netproxy.Question{Host: "unknown.test", Port: 443, Command: "npm install"}); a != netproxy.AllowOnce {
		t.Errorf("yes once: %v", a)
	}
	req := ap.asked[0]
	if req.Tool != "network" || req.Subject != "unknown.test:443" || !strings.Contains(req.Reason, "npm install") || req.Suggest != `sandbox.allowedDomains "unknown.test"` {
		t.Errorf("request %+v", req)
	}
	if names := r.ev.names(); len(names) != 1 {
		t.Errorf("approval request not emitted: %v", names)
	}
	ap.answer = agent.ApproveAlways
	if a := s.askDomain(context.Background(), netproxy.Question{Host: "unknown.test", Port: 443, Command: "npm install"}); a != netproxy.AllowAlways {
		t.Errorf("always: %v", a)
	}
	saved, err := config.Load(config.Paths{Home: home, Project: root, TrustProject: true})
	if err != nil || strings.Join(saved.Sandbox.AllowedDomains, ",") != "unknown.test" {
		t.Fatalf("saved settings: %+v %v", saved.Sandbox, err)
	}
	ap.answer = agent.ApproveDeny
	if a := s.askDomain(context.Background(), netproxy.Question{Host: "x.test", Port: 443}); a != netproxy.Deny {
		t.Errorf("no: %v", a)
	}
	// dontAsk turns the question into a refusal without asking.
	s.SetMode(permission.ModeDontAsk)
	n := len(ap.asked)
	if a := s.askDomain(context.Background(), netproxy.Question{Host: "y.test", Port: 443}); a != netproxy.NobodyToAsk || len(ap.asked) != n {
		t.Errorf("dontAsk: %v, asked %d", a, len(ap.asked)-n)
	}
}
