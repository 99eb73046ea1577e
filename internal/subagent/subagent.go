// Package subagent is the `agent` tool: fork-return delegation. The parent
// model hands a self-contained task to a child agent that starts with an
// empty history, works with a restricted tool set under the parent's
// permissions, and returns only its final report. It isolates context; it
// adds no new powers (the child is never allowed more than the parent).
package subagent

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// Name is the tool name the model sees (SPEC section 4).
const Name = "agent"

// DefaultMaxTurns bounds a child's model round trips when Options.MaxTurns is 0.
const DefaultMaxTurns = 30

// Sub-agent types (subagent_type).
const (
	TypeGeneral = "general"
	TypeExplore = "explore"
	TypePlan    = "plan"
)

//go:embed agent.md
var descriptions embed.FS

// kind is what a sub-agent type may do.
type kind struct {
	// readOnly types get only readTools and may run alongside other reads.
	readOnly bool
	role     string
}

// readTools are the tools of the read-only types.
var readTools = map[string]bool{"read_file": true, "list_files": true, "grep_search": true, "web_fetch": true, "tool_search": true}

// neverInChild are tools a child never gets: no recursion, and no changing
// the parent session's mode or schedule.
var neverInChild = map[string]bool{Name: true, "enter_plan_mode": true, "exit_plan_mode": true, "schedule_wakeup": true}

var kinds = map[string]kind{
	TypeGeneral: {role: "You may use every tool you were given, under the same permission rules as the main agent."},
	TypeExplore: {readOnly: true, role: "You are read-only: find and read what the task asks for. You cannot change files or run commands; do not try."},
	TypePlan: {readOnly: true, role: "You are read-only: investigate the code and design the approach. " +
		"Your report is a concrete plan: goal, files and the change in each, ordered steps, how to verify, open risks."},
}

// Types lists the valid subagent_type values, sorted.
func Types() []string {
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Options connects the tool to the parent session without importing the app.
type Options struct {
	// NewAgent builds the child; nil means agent.New.
	NewAgent func(cfg agent.Config) (*agent.Agent, error)
	// Base returns the parent's configuration as it is now: provider,
	// model and permission mode must be the current ones (after /model,
	// /mode or plan mode), since the child must never be wider than the
	// parent. It is called once per sub-agent.
	Base func() agent.Config
	// Registry is the parent's tool registry; the child's tools are picked
	// from it at each call, so MCP tools registered later are included.
	Registry *tools.Registry
	// MaxTurns bounds each child's round trips; 0 means DefaultMaxTurns.
	MaxTurns int
	// Used returns the parent's usage so far; with it the child's token and
	// cost limits are what remains of the parent's. nil gives the child the
	// parent's full limits.
	Used func() (llm.Usage, float64)
	// AddUsage adds a finished child's usage to the parent's totals (cost
	// -1 when unknown). nil leaves it reported only in the tool result.
	AddUsage func(u llm.Usage, costUSD float64)
	// WrapPrompt prepares the child's first message, e.g. adding the
	// project instructions reminder; nil sends the prompt as given.
	WrapPrompt func(prompt string) string
}

// Tool is the `agent` tool.
type Tool struct {
	o      Options
	desc   string
	schema json.RawMessage
	emitMu sync.Mutex // serialises forwarded child events across children

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
func (t *Tool) Usage() (llm.Usage, float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spentUnknown {
		return t.spent, -1
	}
	return t.spent, t.spentCost
}

func (t *Tool) addSpent(u llm.Usage, cost float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spent.Add(u)
	if cost < 0 {
		t.spentUnknown = true
	} else {
		t.spentCost += cost
	}
}

// New builds the agent tool.
func New(o Options) *Tool {
	d, err := descriptions.ReadFile("agent.md")
	if err != nil {
		panic(fmt.Sprintf("subagent: missing description agent.md: %v", err))
	}
	if o.MaxTurns <= 0 {
		o.MaxTurns = DefaultMaxTurns
	}
	if o.NewAgent == nil {
		o.NewAgent = agent.New
	}
	return &Tool{o: o, desc: strings.TrimSpace(string(d)), schema: schema}
}

var schema = json.RawMessage(`{"type":"object","properties":{` +
	`"description":{"type":"string","minLength":1,"description":"3-5 words naming the task"},` +
	`"prompt":{"type":"string","minLength":1,"description":"the complete, self-contained task"},` +
	`"subagent_type":{"type":"string","description":"general (default), explore or plan"}},` +
	`"required":["description","prompt"],"additionalProperties":false}`)

type input struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Type        string `json:"subagent_type"`
}

func decode(raw json.RawMessage) (input, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("decode input: %w", err)
	}
	in.Type = strings.TrimSpace(in.Type)
	if in.Type == "" {
		in.Type = TypeGeneral
	}
	return in, nil
}

// Name implements tools.Tool.
func (*Tool) Name() string { return Name }

// Description implements tools.Tool.
func (t *Tool) Description() string { return t.desc }

// Schema implements tools.Tool.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// ReadOnly reports true for the read-only types, so explore agents run in
// parallel with other reads; a general agent may change files.
func (*Tool) ReadOnly(raw json.RawMessage) bool {
	in, err := decode(raw)
	if err != nil {
		return false
	}
	k, ok := kinds[in.Type]
	return ok && k.readOnly
}

// Check refuses unknown types (listing the valid ones) and empty tasks.
func (t *Tool) Check(_ *tools.Env, raw json.RawMessage) error {
	in, err := decode(raw)
	if err != nil {
		return err
	}
	if _, ok := kinds[in.Type]; !ok {
		return fmt.Errorf("unknown subagent_type %q; valid types: %s", in.Type, strings.Join(Types(), ", "))
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return errors.New("prompt is empty; give the sub-agent its complete task")
	}
	if t.o.Base == nil || t.o.Registry == nil {
		return errors.New("sub-agents are not available in this session")
	}
	return nil
}

// Run starts a child agent on the task and returns its final report.
func (t *Tool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	if err := t.Check(env, raw); err != nil {
		return tools.Result{}, err
	}
	in, _ := decode(raw)
	k := kinds[in.Type]
	base := t.o.Base()
	cfg, err := t.childConfig(base, env, k, in)
	if err != nil {
		return tools.Result{IsError: true, Content: "Sub-agent not started: " + err.Error()}, nil
	}
	child, err := t.o.NewAgent(cfg)
	if err != nil {
		return tools.Result{}, fmt.Errorf("starting the sub-agent: %w", err)
	}
	prompt := in.Prompt
	if t.o.WrapPrompt != nil {
		prompt = t.o.WrapPrompt(prompt)
	}
	res := child.Run(ctx, prompt)
	t.addSpent(res.Usage, res.CostUSD)
	if t.o.AddUsage != nil {
		t.o.AddUsage(res.Usage, res.CostUSD)
	}
	text := strings.TrimSpace(res.Text)
	if text == "" {
		text = lastAssistantText(child.History())
	}
	if base.Recorder != nil {
		base.Recorder.Record("subagent", Record{
			Description: in.Description, Type: in.Type, Prompt: in.Prompt, Result: text,
			StopReason: string(res.StopReason), Error: res.Err, Usage: res.Usage, CostUSD: res.CostUSD,
			RoundTrips: res.RoundTrips, ToolCalls: res.ToolCalls, Denials: res.Denials, Messages: child.History(),
		})
	}
	if res.StopReason == agent.StopAborted && ctx.Err() != nil {
		return tools.Result{Content: text}, ctx.Err()
	}
	return report(in, res, text, cfg.MaxTurns), nil
}

// Record is what the parent's session keeps about one sub-agent run (a
// "subagent" record): the task, the outcome and the child's whole history.
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
	Messages    []llm.Message  `json:"messages"`
}

// childConfig derives the child's configuration: shared provider, model,
// permissions (in the parent's current mode), hooks and approver; fresh
// history, tools, read receipts; no recorder and no context manager.
func (t *Tool) childConfig(base agent.Config, env *tools.Env, k kind, in input) (agent.Config, error) {
	if base.Provider == nil {
		return agent.Config{}, errors.New("no model provider configured")
	}
	if env == nil {
		env = base.Env
	}
	var childEnv tools.Env
	if env != nil {
		childEnv = *env
	}
	childEnv.Reads = tools.NewReadTracker()
	cfg := agent.Config{
		Provider:         base.Provider,
		Model:            base.Model,
		System:           append(append([]llm.SystemBlock(nil), base.System...), llm.SystemBlock{Text: rolePrompt(in, k)}),
		Tools:            t.childRegistry(k),
		Env:              &childEnv,
		Permissions:      base.Permissions,
		Mode:             base.Mode,
		Approver:         labelled(base.Approver, label(in)),
		Hooks:            base.Hooks,
		Emit:             t.forward(base.Emit, label(in)),
		MaxTurns:         t.o.MaxTurns,
		MaxBudgetTokens:  base.MaxBudgetTokens,
		MaxCostUSD:       base.MaxCostUSD,
		MaxOutputTokens:  base.MaxOutputTokens,
		Thinking:         base.Thinking,
		SessionID:        base.SessionID,
		ToolTimeout:      base.ToolTimeout,
		NoStreamingTools: base.NoStreamingTools,
	}
	if t.o.Used != nil {
		used, cost := t.o.Used()
		if t.o.AddUsage == nil {
			// The parent's totals do not include earlier children: add them.
			t.mu.Lock()
			used.Add(t.spent)
			if t.spentUnknown {
				cost = -1
			} else if cost >= 0 {
				cost += t.spentCost
			}
			t.mu.Unlock()
		}
		if cfg.MaxBudgetTokens > 0 {
			left := cfg.MaxBudgetTokens - used.Total()
			if left <= 0 {
				return cfg, fmt.Errorf("the token budget of %d is used up", cfg.MaxBudgetTokens)
			}
			cfg.MaxBudgetTokens = left
		}
		if cfg.MaxCostUSD > 0 && cost >= 0 {
			left := cfg.MaxCostUSD - cost
			if left <= 0 {
				return cfg, fmt.Errorf("the cost limit of $%.4f is used up", cfg.MaxCostUSD)
			}
			cfg.MaxCostUSD = left
		}
	}
	return cfg, nil
}

// childRegistry picks the child's tools from the parent's: the visible ones
// in the parent's order, then the still-deferred ones (found again through
// the child's own tool_search).
func (t *Tool) childRegistry(k kind) *tools.Registry {
	child := tools.NewRegistry()
	allowed := func(name string) bool {
		if neverInChild[name] {
			return false
		}
		return !k.readOnly || readTools[name]
	}
	for _, name := range t.o.Registry.Names() {
		if !allowed(name) {
			continue
		}
		if name == "tool_search" {
			child.Register(tools.NewToolSearch(child))
			continue
		}
		if tl, ok := t.o.Registry.Get(name); ok {
			child.Register(tl)
			child.Activate(name) // a deferred tool the parent already loaded
		}
	}
	for _, tl := range t.o.Registry.Deferred() {
		if allowed(tl.Name()) {
			child.Register(tl)
		}
	}
	return child
}

func rolePrompt(in input, k kind) string {
	return fmt.Sprintf(`# Sub-agent
You are a sub-agent (type %s) started by hew's main agent for one task: %q.
You start with an empty context: the task in the user message is all you know about the conversation. Work on your own with your tools; nobody can answer questions, so decide sensibly and say what you assumed.
%s
Your final message is the only thing the main agent receives (it does not see your tool calls): make it a complete, concise report of what you found or did, with file paths and line numbers where they help, and anything left open.`,
		in.Type, in.Description, k.role)
}

// labelledApprover tells the user which sub-agent is asking.
type labelledApprover struct {
	agent.Approver
	label string
}

// Approve implements agent.Approver.
func (a labelledApprover) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, string) {
	req.Reason = a.label + ": " + req.Reason
	return a.Approver.Approve(ctx, req)
}

// labelled wraps an approver that really asks someone; nil and
// agent.Headless stay as they are so the child denies as the parent would.
func labelled(a agent.Approver, label string) agent.Approver {
	if a == nil {
		return nil
	}
	if _, headless := a.(agent.Headless); headless {
		return a
	}
	return labelledApprover{Approver: a, label: label}
}

func label(in input) string {
	d := strings.TrimSpace(in.Description)
	if d == "" {
		return "agent(" + in.Type + ")"
	}
	return "agent(" + in.Type + ") " + d
}
