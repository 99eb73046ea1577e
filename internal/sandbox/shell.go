package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/hew-dev/hew/internal/execx"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/tools"
)

// Shell wraps the session's shell runner (whose Wrap is s.Wrap): each
// command gets its own proxy credential in HTTP(S)_PROXY/ALL_PROXY, its
// connections come back as receipts and refusals, and a result whose
// failure the sandbox caused says so and how the user can lift it.
func (s *Sandbox) Shell(inner tools.ShellRunner) tools.ShellRunner {
	return &shell{s: s, inner: inner}
}

type shell struct {
	s     *Sandbox
	inner tools.ShellRunner
}

// proxyVars are the variables hew sets for the proxy; the user's own are
// replaced, since commands can reach no other proxy from the sandbox.
var proxyVars = map[string]bool{
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "NO_PROXY": true,
	"http_proxy": true, "https_proxy": true, "all_proxy": true, "no_proxy": true,
}

// Run implements tools.ShellRunner.
func (sh *shell) Run(ctx context.Context, req tools.ShellRequest) (tools.ShellResult, error) {
	st := sh.s.State()
	sh.s.warnOnce.Do(func() {
		if st.Warning != "" && st.Warning != sh.s.StartupWarning() && sh.s.opts.Notify != nil {
			sh.s.opts.Notify(st.Warning)
		}
	})
	var scope *netproxy.Scope
	if st.Confined && st.Network == NetProxy {
		p, err := sh.s.Proxy()
		if err != nil {
			return tools.ShellResult{}, fmt.Errorf("the sandbox's network proxy cannot start: %w", err)
		}
		scope = p.Begin(req.Command)
		env := req.Env
		if len(env) == 0 {
			env = os.Environ()
		}
		out := make([]string, 0, len(env)+8)
		for _, kv := range env {
			if k, _, _ := strings.Cut(kv, "="); !proxyVars[k] {
				out = append(out, kv)
			}
		}
		req.Env = append(out, scope.Env()...)
	}
	res, err := sh.inner.Run(ctx, req)
	if scope != nil {
		res.Network = scope.End()
		for _, r := range res.Network {
			if r.Denied() && r.By != "error" {
				in, _ := json.Marshal(map[string]any{"domain": r.Host, "port": r.Port})
				res.Denials = append(res.Denials, tools.Denied{Input: in, Reason: "network: " + r.Reason})
			}
		}
	}
	if note, short := sh.s.explain(req.Dir, res); note != "" {
		if res.SandboxNote != "" {
			res.SandboxNote += "\n"
		}
		res.SandboxNote += note
		if sh.s.opts.Notify != nil {
			sh.s.noticeOnce.Do(func() {
				sh.s.opts.Notify("the sandbox " + short + ", or run hew with --no-sandbox; the tool result tells the model the same")
			})
		}
	}
	return res, err
}

// ProjectShell is the shell runner of a session in a project whose state
// directory is stateDir: hew's runner with each command confined by s (when
// it is in force) and its refusals explained. Running commands are recorded
// in stateDir; what a killed hew left running there (where no guard took
// it along: macOS, BSD, or a guard killed with hew) is stopped now, and
// reaped says so for the user ("" when there was nothing).
func (s *Sandbox) ProjectShell(stateDir string) (runner tools.ShellRunner, reaped string) {
	r := &execx.Runner{Wrap: s.Wrap, SandboxNote: s.StartupWarning(), Guard: execx.DefaultGuard()}
	if dir := execx.TrackDir(stateDir); dir != "" {
		r.Track = dir
		if execx.HasOrphanRecords(dir) { // rare: only after a crash, so the start-up stays cheap
			if n := execx.ReapOrphans(dir); n > 0 {
				reaped = fmt.Sprintf("stopped %d command%s that an earlier hew left running in this project when it was killed (kill -9 or a crash)", n, plural(n))
			}
		}
	}
	return s.Shell(r), reaped
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
