package app

import (
	"context"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/sandbox"
)

// The prompt's sandbox line and the permission engine's "sandbox active"
// follow the settings and --no-sandbox (which no mode implies).
func TestSandboxFollowsSettingsAndFlag(t *testing.T) {
	ok, _ := sandbox.Available()
	for _, tc := range []struct {
		name      string
		network   string
		enabled   bool
		noSandbox bool
		line      string
		active    bool
	}{
		{"default allowlist", config.NetworkAllowlist, true, false, "network only through hew's proxy", true},
		{"network off", config.NetworkOff, true, false, "network off", true},
		{"network on", config.NetworkAll, true, false, "network not restricted", false},
		{"--no-sandbox", config.NetworkAllowlist, true, true, "off (turned off: --no-sandbox)", false},
		{"disabled in settings", config.NetworkAllowlist, false, false, "off (turned off in settings)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := config.Default()
			s.Sandbox.Network, s.Sandbox.Enabled = tc.network, tc.enabled
			sb := sandbox.New(sandboxOptions(s, tc.noSandbox, sandbox.Policy{Root: t.TempDir(), Home: "-"}))
			line := sb.Describe()
			if !ok && tc.enabled && !tc.noSandbox {
				if !strings.HasPrefix(line, "off (") || sb.ConfinesNetwork() {
					t.Errorf("no Landlock here, but %q / active %v", line, sb.ConfinesNetwork())
				}
				return
			}
			if !strings.Contains(line, tc.line) || sb.ConfinesNetwork() != tc.active {
				t.Errorf("line %q (want %q), active %v (want %v)", line, tc.line, sb.ConfinesNetwork(), tc.active)
			}
			if tc.noSandbox && !strings.Contains(sb.StartupWarning(), "--no-sandbox") {
				t.Errorf("warning %q", sb.StartupWarning())
			}
		})
	}
}

func TestNoSandboxFlag(t *testing.T) {
	o, err := parseFlags([]string{"--yolo", "-p", "x"})
	if err != nil || o.noSandbox {
		t.Fatalf("--yolo implied --no-sandbox: %+v %v", o, err)
	}
	if o, err = parseFlags([]string{"--no-sandbox", "-p", "x"}); err != nil || !o.noSandbox {
		t.Fatalf("--no-sandbox: %+v %v", o, err)
	}
}

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
	root, home := t.TempDir(), t.TempDir()
	var events []agent.Event
	p := &parts{root: root, home: home, homeDir: t.TempDir(), front: &sandboxFront{emit: func(e agent.Event) { events = append(events, e) }}}
	if a := p.askDomain(context.Background(), netproxy.Question{Host: "unknown.test", Port: 443, Command: "npm install"}); a != netproxy.NobodyToAsk {
		t.Errorf("headless answer %v", a)
	}
	ap := &fakeApprover{answer: agent.ApproveOnce}
	p.front.ask = ap
	if a := p.askDomain(context.Background(), netproxy.Question{Host: "unknown.test", Port: 443, Command: "npm install"}); a != netproxy.AllowOnce {
		t.Errorf("yes once: %v", a)
	}
	r := ap.asked[0]
	if r.Tool != "network" || r.Subject != "unknown.test:443" || !strings.Contains(r.Reason, "npm install") || r.Suggest != `sandbox.allowedDomains "unknown.test"` {
		t.Errorf("request %+v", r)
	}
	if len(events) != 1 {
		t.Errorf("approval request not emitted: %v", events)
	}
	ap.answer = agent.ApproveAlways
	if a := p.askDomain(context.Background(), netproxy.Question{Host: "unknown.test", Port: 443, Command: "npm install"}); a != netproxy.AllowAlways {
		t.Errorf("always: %v", a)
	}
	s, err := config.Load(config.Paths{Home: home, Project: root, TrustProject: true})
	if err != nil || strings.Join(s.Sandbox.AllowedDomains, ",") != "unknown.test" {
		t.Fatalf("saved settings: %+v %v", s.Sandbox, err)
	}
	ap.answer = agent.ApproveDeny
	if a := p.askDomain(context.Background(), netproxy.Question{Host: "x.test", Port: 443}); a != netproxy.Deny {
		t.Errorf("no: %v", a)
	}
	// dontAsk turns the question into a refusal without asking.
	p.front.mode = func() permission.Mode { return permission.ModeDontAsk }
	n := len(ap.asked)
	if a := p.askDomain(context.Background(), netproxy.Question{Host: "y.test", Port: 443}); a != netproxy.NobodyToAsk || len(ap.asked) != n {
		t.Errorf("dontAsk: %v, asked %d", a, len(ap.asked)-n)
	}
}
