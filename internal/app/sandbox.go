package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/execx"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/sandbox"
)

// sandboxArg is the hidden first argument of hew's sandbox personality: the
// sandbox re-executes hew with it to confine a shell command.
const sandboxArg = sandbox.HelperArg

func sandboxMain(args []string) int { return sandbox.Main(args) }

// sandboxOptions are the session's sandbox settings; --no-sandbox turns it
// off explicitly (no permission mode does).
func sandboxOptions(settings *config.Settings, noSandbox bool, pol sandbox.Policy) sandbox.Options {
	o := sandbox.Options{
		Policy:  pol,
		Enabled: settings.Sandbox.Enabled && !noSandbox,
		Network: settings.Sandbox.Network,
		Rules:   netproxy.Rules{Allowed: settings.Sandbox.AllowedDomains, Denied: settings.Sandbox.DeniedDomains},
	}
	if noSandbox {
		o.DisabledBy = "--no-sandbox"
	}
	return o
}

// sandboxFront is who the sandbox asks about domains and tells about
// blocked commands; newSession fills it in once the front-end is known.
type sandboxFront struct {
	ask  agent.Approver
	emit func(agent.Event)
	// mode is the session's current permission mode (dontAsk turns the
	// question into a refusal, as it does every ask); nil before the
	// session exists.
	mode func() permission.Mode
}

// wireSandbox gives the session's shell runner to the sandbox: each
// command confined, pointed at the proxy and its refusals explained.
func (rt *parts) wireSandbox(sb *sandbox.Sandbox) {
	rt.sandbox = sb
	rt.front = &sandboxFront{}
	sb.SetFront(rt.askDomain, func(text string) { rt.tell(agent.Notice{Level: "warn", Text: text}) })
	warning := sb.StartupWarning()
	runner := &execx.Runner{Wrap: sb.Wrap, SandboxNote: warning, Guard: execx.DefaultGuard()}
	if dir := execx.TrackDir(rt.stateDir); dir != "" {
		// No guard here (macOS, BSD): record running commands and reap what a
		// killed hew left running in this project.
		runner.Track = dir
		go execx.ReapOrphans(dir)
	}
	rt.env.Shell = sb.Shell(runner)
	rt.sandboxLine = sb.Describe()
	if warning != "" {
		rt.notices = append(rt.notices, warning)
	}
}

// askDomain puts a domain the sandbox's proxy does not know to the user,
// as an approval like any other; with nobody to ask (headless) it is
// refused and listed.
func (rt *parts) askDomain(ctx context.Context, q netproxy.Question) netproxy.Answer {
	ap := rt.front.ask
	if ap == nil || rt.front.mode != nil && rt.front.mode() == permission.ModeDontAsk {
		return netproxy.NobodyToAsk
	}
	req := agent.ApprovalRequest{
		Tool:    "network",
		Subject: fmt.Sprintf("%s:%d", q.Host, q.Port),
		Reason:  fmt.Sprintf("the command `%s` connects to %s, which is not in sandbox.allowedDomains", q.Command, q.Host),
		Suggest: fmt.Sprintf("sandbox.allowedDomains %q", q.Host),
	}
	rt.tell(req)
	ans, _ := ap.Approve(ctx, req)
	switch ans {
	case agent.ApproveOnce:
		return netproxy.AllowOnce
	case agent.ApproveSession:
		return netproxy.AllowSession
	case agent.ApproveAlways:
		local := filepath.Join(rt.root, ".hew", "settings.local.json")
		err := config.KeepTrust(config.Paths{Home: rt.home, Project: rt.root, UserHome: rt.homeDir}, func() error {
			return sandbox.AddAllowedDomain(local, q.Host)
		})
		if err != nil {
			rt.tell(agent.Notice{Level: "warn", Text: "could not save " + q.Host + " to sandbox.allowedDomains: " + err.Error() + "; allowed for this session"})
			return netproxy.AllowSession
		}
		rt.tell(agent.Notice{Level: "info", Text: "saved " + q.Host + " to sandbox.allowedDomains in " + local + "; it will not ask again"})
		return netproxy.AllowAlways
	}
	return netproxy.Deny
}

// tell passes an event to the front-end, if there is one yet.
func (rt *parts) tell(e agent.Event) {
	if rt.front != nil && rt.front.emit != nil {
		rt.front.emit(e)
	}
}
