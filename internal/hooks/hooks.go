// Package hooks runs the user's PreToolUse / PostToolUse /
// PostToolUseFailure commands from settings. A hook gets the call as JSON on
// stdin and may block it, override the permission decision, rewrite the
// input, add context, show a message or end the turn. Hooks are a policy
// layer, so a PreToolUse hook that fails in any way blocks the call (fail
// closed); a failing post hook is reported and changes nothing.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
)

// DefaultTimeout bounds a hook that sets no timeout of its own.
const DefaultTimeout = 60 * time.Second

// maxOutput caps what is read from a hook's stdout and stderr.
const maxOutput = 1 << 20

// Runner runs configured hooks; it implements agent.HookRunner.
type Runner struct {
	pre, post, failure []hook
	// events holds the hooks of the other events (UserPromptSubmit, Stop,
	// SubagentStop, PreCompact, SessionStart, SessionEnd) by name.
	events map[string][]hook
	cwd    string
	env    []string
	// Timeout is used for hooks without their own timeout.
	Timeout time.Duration
}

type hook struct {
	config.Hook
	match func(tool string) bool
}

var _ agent.HookRunner = (*Runner)(nil)

// New prepares the hooks of cfg to run in cwd with env (KEY=VALUE, the
// environment hew was given; nil is an empty one), plus HEW_PROJECT_DIR=cwd.
func New(cfg config.Hooks, cwd string, env []string) *Runner {
	r := &Runner{cwd: cwd, env: append(append([]string{}, env...), "HEW_PROJECT_DIR="+cwd), Timeout: DefaultTimeout}
	conv := func(in []config.Hook) []hook {
		out := make([]hook, 0, len(in))
		for _, h := range in {
			out = append(out, hook{Hook: h, match: matcher(h.Matcher)})
		}
		return out
	}
	r.pre, r.post, r.failure = conv(cfg.PreToolUse), conv(cfg.PostToolUse), conv(cfg.PostToolUseFailure)
	r.events = map[string][]hook{}
	for _, ev := range lifecycleEvents {
		if list := cfg.Event(ev); len(list) > 0 {
			r.events[ev] = conv(list)
		}
	}
	return r
}

// claudeNames lets matchers written for Claude Code (Bash, Edit|Write,
// MultiEdit, LS) work.
var claudeNames = map[string][]string{
	"run_shell": {"Bash"}, "read_file": {"Read"}, "edit_file": {"Edit", "MultiEdit"}, "write_file": {"Write"},
	"grep_search": {"Grep"}, "list_files": {"Glob", "LS"}, "web_fetch": {"WebFetch"}, "todo_write": {"TodoWrite"},
	"agent": {"Task"},
}

// serverOnly is an mcp__SERVER alternative without a tool part.
var serverOnly = regexp.MustCompile(`^mcp__[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$`)

// matcher compiles a tool-name matcher: empty or "*" matches every tool,
// otherwise an anchored regular expression (a plain name is one) tried on
// the hew name and its Claude Code aliases; "|" separates alternatives, and
// an alternative "mcp__SERVER" matches every tool of that server.
func matcher(m string) func(string) bool {
	if m == "" || m == "*" {
		return func(string) bool { return true }
	}
	alts := strings.Split(m, "|")
	for i, a := range alts {
		if serverOnly.MatchString(a) && !strings.Contains(strings.TrimPrefix(a, "mcp__"), "__") {
			alts[i] = a + "(?:__.*)?"
		}
	}
	re, err := regexp.Compile("^(?:" + strings.Join(alts, "|") + ")$")
	if err != nil {
		// config.Parse rejects invalid matchers; match nothing rather than all.
		return func(tool string) bool { return tool == m }
	}
	return func(tool string) bool {
		if re.MatchString(tool) {
			return true
		}
		for _, alias := range claudeNames[tool] {
			if re.MatchString(alias) {
				return true
			}
		}
		return false
	}
}

// Empty reports whether no hook is configured.
func (r *Runner) Empty() bool { return len(r.pre)+len(r.post)+len(r.failure)+len(r.events) == 0 }

// PreToolUse runs the matching PreToolUse hooks in order. Each later hook
// sees the input as rewritten by earlier ones. The first block wins; the
// strictest permission decision wins.
func (r *Runner) PreToolUse(ctx context.Context, p agent.HookPayload) agent.HookOutcome {
	p.Event = "PreToolUse"
	var out agent.HookOutcome
	var permReason string
	for _, h := range r.pre {
		if !h.match(p.Tool) {
			continue
		}
		res := r.run(ctx, h, p, true)
		if res.Block {
			return agent.HookOutcome{Block: true, Reason: res.Reason, Message: joinLines(out.Message, res.Message)}
		}
		if res.Permission != "" && stricter(res.Permission, out.Permission) {
			out.Permission, permReason = res.Permission, res.Reason
		}
		if len(res.UpdatedInput) > 0 {
			out.UpdatedInput = res.UpdatedInput
			p.Input = res.UpdatedInput
		}
		out.AdditionalContext = joinLines(out.AdditionalContext, res.AdditionalContext)
		out.Message = joinLines(out.Message, res.Message)
		if res.Stop && !out.Stop {
			out.Stop = true
			if permReason == "" {
				out.Reason = res.Reason
			}
		}
	}
	if out.Permission != "" {
		out.Reason = permReason
	}
	return out
}

// PostToolUse runs the matching PostToolUse hooks, or the
// PostToolUseFailure ones when p.Event says the call failed.
func (r *Runner) PostToolUse(ctx context.Context, p agent.HookPayload) agent.HookOutcome {
	list := r.post
	if p.Event == "PostToolUseFailure" {
		list = r.failure
	} else {
		p.Event = "PostToolUse"
	}
	var out agent.HookOutcome
	for _, h := range list {
		if !h.match(p.Tool) {
			continue
		}
		res := r.run(ctx, h, p, false)
		if res.Block {
			out.Block = true
			out.Reason = joinLines(out.Reason, res.Reason)
		}
		out.AdditionalContext = joinLines(out.AdditionalContext, res.AdditionalContext)
		out.Message = joinLines(out.Message, res.Message)
		if res.Stop && !out.Stop {
			out.Stop = true
			if !out.Block {
				out.Reason = res.Reason
			}
		}
	}
	return out
}

// stricter reports whether decision a is stricter than b.
func stricter(a, b string) bool {
	rank := map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}
	return rank[a] > rank[b]
}

func joinLines(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// name identifies a hook in messages.
func (h hook) name() string {
	c := strings.Join(strings.Fields(h.Command), " ")
	if len(c) > 80 {
		c = "..." + c[len(c)-77:] // the tail names the script
	}
	if h.Source != "" {
		return fmt.Sprintf("hook %q (%s)", c, h.Source)
	}
	return fmt.Sprintf("hook %q", c)
}

// run executes one tool-call hook and interprets its answer. pre selects
// fail-closed handling: any failure blocks; for post hooks a failure is
// only reported.
func (r *Runner) run(ctx context.Context, h hook, p agent.HookPayload, pre bool) agent.HookOutcome {
	rules := verdictRules{failClosed: pre, blocked: "the call is blocked"}
	if p.Cwd == "" {
		p.Cwd = r.cwd
	}
	payload, err := json.Marshal(p)
	if err != nil {
		return rules.fail(h, "could not be given its input: "+err.Error())
	}
	return rules.interpret(h, r.exec(ctx, h, payload))
}

// verdictRules say how one event reads a hook's run; tool hooks and
// lifecycle hooks share the reading and differ only in these.
type verdictRules struct {
	failClosed bool   // a failure blocks (else it is reported and ignored)
	blocked    string // what a fail-closed failure says was blocked
	// plain is what stdout that is not a JSON object means: "context" for
	// the model, "ignored", or "" an invalid answer (tool hooks, issue 5:
	// a PreToolUse hook printing garbage blocks the call).
	plain      string
	stopBlocks bool // "continue": false blocks what the event guards
}

func (v verdictRules) fail(h hook, why string) agent.HookOutcome {
	if v.failClosed {
		return agent.HookOutcome{Block: true, Reason: h.name() + " " + why + "; " + v.blocked}
	}
	return agent.HookOutcome{Message: h.name() + " " + why + "; ignored"}
}

// interpret turns one hook's run into an outcome: exit 2 blocks with
// stderr as the reason; exit 0 with a JSON object on stdout is an answer,
// with plain text what plain says. A run that failed otherwise, or an
// answer that does not parse, follows failClosed.
func (v verdictRules) interpret(h hook, x execResult) agent.HookOutcome {
	switch {
	case x.fail != "":
		return v.fail(h, x.fail)
	case x.code == 2:
		reason := x.errText
		if reason == "" {
			reason = h.name() + " exited with status 2"
		}
		return agent.HookOutcome{Block: true, Reason: reason}
	case x.out == "":
		return agent.HookOutcome{}
	case x.out[0] != '{' && v.plain == "context":
		return agent.HookOutcome{AdditionalContext: x.out}
	case x.out[0] != '{' && v.plain == "ignored":
		return agent.HookOutcome{}
	}
	res, err := parseAnswer([]byte(x.out))
	if err != nil {
		return v.fail(h, "printed an invalid answer ("+err.Error()+")")
	}
	if res.Stop && v.stopBlocks { // "continue": false ends the prompt or the stop for good
		res.Block = v.failClosed
		if res.Reason == "" {
			res.Reason = h.name() + ` answered "continue": false`
		}
	}
	return res
}

// execResult is what running one hook command gave.
type execResult struct {
	out, errText string // trimmed stdout and stderr
	code         int    // exit status when it exited by itself (0 or 2)
	fail         string // why it failed otherwise (timeout, crash, cancel)
}

// exec runs one hook command with payload on stdin, bounded by its timeout.
func (r *Runner) exec(ctx context.Context, h hook, payload []byte) execResult {
	timeout := r.Timeout
	if h.Timeout > 0 {
		timeout = time.Duration(h.Timeout * float64(time.Second))
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(hctx, "sh", "-c", h.Command)
	cmd.Dir = r.cwd
	cmd.Env = r.env
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	x := execResult{out: strings.TrimSpace(stdout.String()), errText: strings.TrimSpace(stderr.String())}
	switch {
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		x.fail = fmt.Sprintf("timed out after %s", timeout)
	case ctx.Err() != nil:
		x.fail = "was cancelled"
	case runErr != nil:
		var ee *exec.ExitError
		if errors.As(runErr, &ee) && ee.ExitCode() == 2 {
			x.code = 2
			return x
		}
		x.fail = "failed: " + runErr.Error()
		if x.errText != "" {
			x.fail += ": " + firstLine(x.errText)
		}
	}
	return x
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
