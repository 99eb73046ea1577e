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
// it is in force) and its refusals explained. Where no guard makes commands
// die with hew (macOS, BSD), running commands are recorded in stateDir and
// what a killed hew left running there is reaped in the background.
func (s *Sandbox) ProjectShell(stateDir string) tools.ShellRunner {
	runner := &execx.Runner{Wrap: s.Wrap, SandboxNote: s.StartupWarning(), Guard: execx.DefaultGuard()}
	if dir := execx.TrackDir(stateDir); dir != "" {
		runner.Track = dir
		go execx.ReapOrphans(dir)
	}
	return s.Shell(runner)
}
