// Package subagent runs sub-agents: fork-return delegation. The parent
// model hands a self-contained task to a child agent that starts with an
// empty history (or, on the fork path, with the parent's exact context),
// works with a role-limited tool set under the parent's permissions, and
// returns only its final report. It isolates context; it adds no new
// powers (the child is never allowed more than the parent). The model asks
// for a run with the agent tool (internal/tools/agent); hew itself runs
// fork skills as a Task.
package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// DefaultMaxTurns bounds a child's model round trips when Options.MaxTurns is 0.
const DefaultMaxTurns = 30

// DefaultParallel bounds how many sub-agents run at once.
const DefaultParallel = 4

// Built-in sub-agent types (subagent_type). No type at all takes the fork
// path: the child starts from the parent's exact context.
const (
	TypeGeneral = "general"
	TypeExplore = "explore"
	TypePlan    = "plan"
	TypeVerify  = "verify"
	TypeFork    = "fork"
)

// Options connects the tool to the parent session without importing the app.
type Options struct {
	// NewAgent builds the child; nil means agent.New.
	NewAgent func(cfg agent.Config) (*agent.Agent, error)
	// Base returns the parent's configuration as it is now: provider,
	// model and permission mode must be the current ones (after /model,
	// /mode or plan mode), since the child must never be wider than the
	// parent. It is called once per sub-agent.
	Base func() agent.Config
	// History returns the parent's history as it is now (the answer holding
	// the agent call included); the fork path starts from it. nil turns the
	// fork path off: an agent call without a type then runs a general agent.
	History func() []llm.Message
	// Registry is the parent's tool registry; the child's tools are picked
	// from it at each call, so MCP tools registered later are included.
	Registry *tools.Registry
	// Roles are user-defined roles (LoadRoles) next to the built-in ones.
	Roles map[string]Role
	// MaxTurns bounds each child's round trips; 0 means DefaultMaxTurns.
	MaxTurns int
	// Parallel bounds the children running at once; 0 means DefaultParallel.
	Parallel int
	// Used returns the parent's usage so far; with it the child's token and
	// cost limits are what remains of the parent's. nil gives the child the
	// parent's full limits.
	Used func() (llm.Usage, float64)
	// AddUsage adds a finished child's usage to the parent's totals (cost
	// -1 when unknown). nil leaves it reported only in the tool result.
	AddUsage func(u llm.Usage, costUSD float64)
	// WrapPrompt prepares the child's first message, e.g. adding the
	// project instructions reminder; nil sends the prompt as given. The
	// fork path never wraps (its context already holds the reminder).
	WrapPrompt func(prompt string) string
	// Sidechain opens the file a child's transcript is written to as it
	// runs, beside the parent's session; it returns the recorder and the
	// transcript's id (for `hew sessions show`). nil keeps the transcript
	// inside the parent's "subagent" record instead.
	Sidechain func(SidechainInfo) (agent.Recorder, string, error)
}

// SidechainInfo describes a child whose transcript is about to be saved.
type SidechainInfo struct {
	Description, Type, Model string
}

// Runner starts the sub-agents of one session.
type Runner struct {
	o      Options
	roles  map[string]Role
	sem    chan struct{}
	wt     worktrees
	emitMu sync.Mutex // serialises forwarded child events across children
	askMu  sync.Mutex // one approval question at a time across children

	mu sync.Mutex
	// spent is what finished children used, counted here when AddUsage is
	// nil so that later children still see the true remaining budget.
	spent        llm.Usage
	spentCost    float64
	spentUnknown bool
}

// Usage is what all sub-agents of this session used: tokens and cost in
// USD (-1 when a price was unknown). Front-ends add it to the session's
// totals when the agent cannot take it through Options.AddUsage.
func (t *Runner) Usage() (llm.Usage, float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spentUnknown {
		return t.spent, -1
	}
	return t.spent, t.spentCost
}

func (t *Runner) addSpent(u llm.Usage, cost float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spent.Add(u)
	if cost < 0 {
		t.spentUnknown = true
	} else {
		t.spentCost += cost
	}
}

// New builds the session's sub-agent runner.
func New(o Options) *Runner {
	if o.MaxTurns <= 0 {
		o.MaxTurns = DefaultMaxTurns
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.NewAgent == nil {
		o.NewAgent = agent.New
	}
	roles := builtinRoles()
	for name, r := range o.Roles {
		if _, builtin := roles[name]; !builtin {
			roles[name] = r
		}
	}
	return &Runner{o: o, roles: roles, sem: make(chan struct{}, o.Parallel)}
}

// Job is one sub-agent run a call asked for.
type Job struct {
	// Description names the task in 3-5 words (labels, records).
	Description string
	// Prompt is the complete task.
	Prompt string
	// Type is a role's name, or TypeFork: the child starts from the
	// parent's exact context.
	Type string
	// Isolation is "" or IsolationWorktree.
	Isolation string
}

// Call is the tool call that asked for a run. On the fork path the child's
// copy of the parent's history answers it as the child's own task, and the
// child may not make that call again (no recursion).
type Call struct {
	Tool  string
	Input json.RawMessage
}

// DefaultType is the type of a run that names none: the fork path, or a
// general agent when the session cannot fork.
func (t *Runner) DefaultType() string {
	if t.o.History == nil {
		return TypeGeneral
	}
	return TypeFork
}

// Role is the role called name.
func (t *Runner) Role(name string) (Role, bool) {
	r, ok := t.roles[name]
	return r, ok
}

// Types lists the valid subagent_type values, sorted.
func (t *Runner) Types() []string { return roleNames(t.roles) }

// Roles lists every role of this session (built-in and user-defined).
func (t *Runner) Roles() []Role {
	out := make([]Role, 0, len(t.roles))
	for _, n := range roleNames(t.roles) {
		out = append(out, t.roles[n])
	}
	return out
}

// Check refuses unknown types (listing the valid ones), empty tasks and
// unknown isolation, and runs in a session that cannot start sub-agents.
func (t *Runner) Check(j Job) error {
	if _, ok := t.roles[j.Type]; !ok && j.Type != TypeFork {
		return fmt.Errorf("unknown subagent_type %q; valid types: %s (or leave it out to fork your context)", j.Type, strings.Join(t.Types(), ", "))
	}
	if strings.TrimSpace(j.Prompt) == "" {
		return errors.New("prompt is empty; give the sub-agent its complete task")
	}
	if j.Isolation != "" && j.Isolation != IsolationWorktree {
		return fmt.Errorf("isolation %q is not known; the only isolation is %q", j.Isolation, IsolationWorktree)
	}
	if t.o.Base == nil || t.o.Registry == nil {
		return errors.New("sub-agents are not available in this session")
	}
	return nil
}

// Start runs a child agent on the job and returns its final report.
func (t *Runner) Start(ctx context.Context, env *tools.Env, j Job, from Call) (tools.Result, error) {
	if err := t.Check(j); err != nil {
		return tools.Result{}, err
	}
	isolate := j.Isolation == IsolationWorktree
	if j.Type == TypeFork {
		return t.run(ctx, env, job{in: j, role: Role{Name: TypeFork}, fork: true, from: from, isolate: isolate})
	}
	return t.run(ctx, env, job{in: j, role: t.roles[j.Type], from: from, isolate: isolate})
}

// Task is a sub-agent run started by hew itself rather than by the model:
// a fork skill (context: fork) runs its prompt this way.
type Task struct {
	Description, Prompt string
	// Tools bound the child (rules, as a role's Tools); nil gives it every
	// tool a general agent gets.
	Tools []string
	// Model replaces the parent's model when set.
	Model string
}

// RunTask runs t as a general sub-agent limited to task.Tools and returns
// its final report, like an agent call.
func (t *Runner) RunTask(ctx context.Context, env *tools.Env, task Task) (tools.Result, error) {
	if t.o.Base == nil || t.o.Registry == nil {
		return tools.Result{}, errors.New("sub-agents are not available in this session")
	}
	r := t.roles[TypeGeneral]
	r.Tools, r.Model = task.Tools, task.Model
	r.Prompt = "Follow the instructions in the user message; they are a skill the user or the main agent chose for this task."
	return t.run(ctx, env, job{in: Job{Description: task.Description, Prompt: task.Prompt, Type: TypeGeneral}, role: r})
}

// job is one child run.
type job struct {
	in   Job
	role Role
	fork bool
	from Call // the call that asked for the run
	// isolate runs the child in its own git worktree and branch.
	isolate bool
}

func (t *Runner) run(ctx context.Context, env *tools.Env, j job) (tools.Result, error) {
	select {
	case t.sem <- struct{}{}:
		defer func() { <-t.sem }()
	case <-ctx.Done():
		return tools.Result{}, ctx.Err()
	}
	base := t.o.Base()
	cfg, err := t.childConfig(base, env, j)
	if err != nil {
		return tools.Result{IsError: true, Content: "Sub-agent not started: " + err.Error()}, nil
	}
	var wt *worktree
	if j.isolate {
		if wt, err = t.wt.create(ctx, cfg.Env.Root, j.in.Description); err != nil {
			return tools.Result{IsError: true, Content: "Sub-agent not started: " + err.Error()}, nil
		}
		cfg.Env.Root = wt.root()
	}
	var sidechain string
	if t.o.Sidechain != nil {
		rec, id, err := t.o.Sidechain(SidechainInfo{Description: j.in.Description, Type: j.in.Type, Model: cfg.Model})
		if err == nil {
			cfg.Recorder, sidechain = rec, id
		} else if base.Emit != nil {
			base.Emit(agent.Notice{Level: "warn", Text: "sub-agent transcript not saved: " + err.Error()})
		}
	}
	child, err := t.o.NewAgent(cfg)
	if err != nil {
		if wt != nil {
			_, _ = t.wt.finish(wt, j.in.Description)
		}
		return tools.Result{}, fmt.Errorf("starting the sub-agent: %w", err)
	}
	prompt := j.in.Prompt
	if j.fork {
		child.SetHistory(forkHistory(t.o.History(), j.from))
		prompt = forkDirective(j.in)
	} else if t.o.WrapPrompt != nil {
		prompt = t.o.WrapPrompt(prompt)
	}
	res := child.Run(ctx, prompt)
	text := strings.TrimSpace(res.Text)
	missing := ""
	if res.StopReason == agent.StopCompleted && j.role.Require != nil {
		if missing = j.role.Require(text); missing != "" && ctx.Err() == nil {
			more := child.Run(ctx, "Your report is missing "+missing+". Reply with the complete report again, including it.")
			if more.StopReason == agent.StopCompleted && strings.TrimSpace(more.Text) != "" {
				text = strings.TrimSpace(more.Text)
				res = addResults(res, more)
			} else {
				res = addResults(more, res) // keep the first outcome, count both
			}
			missing = j.role.Require(text)
		}
	}
	if text == "" {
		text = lastAssistantText(child.History())
	}
	t.addSpent(res.Usage, res.CostUSD)
	if t.o.AddUsage != nil {
		t.o.AddUsage(res.Usage, res.CostUSD)
	}
	if base.Recorder != nil {
		rec := Record{
			Description: j.in.Description, Type: j.in.Type, Prompt: j.in.Prompt, Result: text,
			StopReason: string(res.StopReason), Error: res.Err, Usage: res.Usage, CostUSD: res.CostUSD,
			RoundTrips: res.RoundTrips, ToolCalls: res.ToolCalls, Denials: res.Denials, Sidechain: sidechain,
		}
		if sidechain == "" {
			rec.Messages = child.History()
		}
		base.Recorder.Record("subagent", rec)
	}
	if c, ok := cfg.Recorder.(interface{ Close() error }); ok && sidechain != "" {
		_ = c.Close()
	}
	isolation := ""
	if wt != nil {
		if isolation, err = t.wt.finish(wt, j.in.Description); err != nil {
			isolation = "Worktree isolation: saving the sub-agent's changes failed (" + err.Error() + "); branch " + wt.branch + " may hold part of them."
		}
	}
	if res.StopReason == agent.StopAborted && ctx.Err() != nil {
		return tools.Result{Content: text}, ctx.Err()
	}
	out := report(j, res, text, missing, cfg.MaxTurns, sidechain)
	if isolation != "" {
		out.Content += "\n\n" + isolation
	}
	return out, nil
}

// addResults adds a follow-up run to the first one.
func addResults(a, b agent.TurnResult) agent.TurnResult {
	u := a.Usage
	u.Add(b.Usage)
	cost := a.CostUSD + b.CostUSD
	if a.CostUSD < 0 || b.CostUSD < 0 {
		cost = -1
	}
	b.Usage, b.CostUSD = u, cost
	b.RoundTrips += a.RoundTrips
	b.ToolCalls += a.ToolCalls
	b.Denials = append(append([]agent.Denial(nil), a.Denials...), b.Denials...)
	return b
}

// Record is what the parent's session keeps about one sub-agent run (a
// "subagent" record): the task, the outcome, and the child's transcript
// (its sidechain id, or the whole history when there is no sidechain).
type Record struct {
	Description string         `json:"description"`
	Type        string         `json:"subagent_type"`
	Prompt      string         `json:"prompt"`
	Result      string         `json:"result"`
	StopReason  string         `json:"stop_reason"`
	Error       string         `json:"error,omitempty"`
	Usage       llm.Usage      `json:"usage"`
	CostUSD     float64        `json:"cost_usd"`
	RoundTrips  int            `json:"num_turns"`
	ToolCalls   int            `json:"tool_calls"`
	Denials     []agent.Denial `json:"permission_denials,omitempty"`
	Sidechain   string         `json:"sidechain,omitempty"`
	Messages    []llm.Message  `json:"messages,omitempty"`
}

// labelledApprover tells the user which sub-agent is asking, one question
// at a time when several children run at once.
type labelledApprover struct {
	agent.Approver
	label string
	mu    *sync.Mutex
}

// Approve implements agent.Approver.
func (a labelledApprover) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	req.Reason = a.label + ": " + req.Reason
	return a.Approver.Approve(ctx, req)
}

// labelled wraps an approver that really asks someone; nil and
// agent.Headless stay as they are so the child denies as the parent would.
func (t *Runner) labelled(a agent.Approver, label string) agent.Approver {
	if a == nil {
		return nil
	}
	if _, headless := a.(agent.Headless); headless {
		return a
	}
	return labelledApprover{Approver: a, label: label, mu: &t.askMu}
}

func label(in Job) string {
	d := strings.TrimSpace(in.Description)
	if d == "" {
		return "agent(" + in.Type + ")"
	}
	return "agent(" + in.Type + ") " + d
}
