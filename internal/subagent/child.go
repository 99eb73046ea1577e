package subagent

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// childConfig derives the child's configuration: shared provider, model
// (unless the role names one), permissions, hooks and approver; its own
// tools, read receipts, turn limit and what is left of the budget; no
// context manager. The mode is the parent's, except that a read-only role
// decides in plan mode; plan and auto always carry over.
func (t *Runner) childConfig(base agent.Config, env *tools.Env, j job) (agent.Config, error) {
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
	in, r := j.in, j.role
	cfg := agent.Config{
		Provider:         base.Provider,
		Model:            base.Model,
		System:           base.System,
		Env:              &childEnv,
		Permissions:      base.Permissions,
		Mode:             base.Mode,
		Approver:         t.labelled(base.Approver, label(in)),
		Hooks:            base.Hooks,
		StopEvent:        "SubagentStop",
		Emit:             t.forward(base.Emit, label(in)),
		MaxTurns:         t.o.MaxTurns,
		MaxBudgetTokens:  base.MaxBudgetTokens,
		MaxCostUSD:       base.MaxCostUSD,
		MaxOutputTokens:  base.MaxOutputTokens,
		ContextWindow:    base.ContextWindow,
		Thinking:         base.Thinking,
		SessionID:        base.SessionID,
		ToolTimeout:      base.ToolTimeout,
		NoStreamingTools: base.NoStreamingTools,
	}
	if r.MaxTurns > 0 {
		cfg.MaxTurns = r.MaxTurns
	}
	if j.fork {
		// Same system, tools and model as the parent: the request shares
		// the parent's prefix, so the provider's prompt cache is hit.
		cfg.Tools = t.forkRegistry()
		cfg.Permissions = mainAgentOnly(cfg.Permissions, cfg.Tools, j.from.Tool)
	} else {
		if r.Model != "" {
			cfg.Model = r.Model
		}
		cfg.System = append(append([]llm.SystemBlock(nil), base.System...), llm.SystemBlock{Text: rolePrompt(in, r)})
		var keep func(name string) bool // nil keeps every tool
		switch {
		case r.Explorers:
			names := t.explorers()
			cfg.Permissions = onlyTools(cfg.Permissions, names)
			keep = func(name string) bool { return slices.Contains(names, name) }
		case r.Tools != nil:
			restrict, err := permission.NewRestriction(r.Tools, childEnv.Root, childEnv.HomeDir)
			if err != nil {
				return cfg, fmt.Errorf("the tool list of role %s: %w", r.Name, err)
			}
			cfg.Permissions = restricted(cfg.Permissions, restrict)
			keep = restrict.Covers
		}
		cfg.Tools = t.childRegistry(keep)
		if r.ReadOnlyShell && cfg.Mode != permission.ModePlan {
			cfg.Mode = permission.ModePlan
		}
	}
	if err := t.budget(&cfg); err != nil {
		return cfg, err
	}
	if r.MaxTokens > 0 && (cfg.MaxBudgetTokens == 0 || r.MaxTokens < cfg.MaxBudgetTokens) {
		cfg.MaxBudgetTokens = r.MaxTokens
	}
	return cfg, nil
}

// budget gives the child what is left of the parent's token and cost limits.
func (t *Runner) budget(cfg *agent.Config) error {
	if t.o.Used == nil {
		return nil
	}
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
			return fmt.Errorf("the token budget of %d is used up", cfg.MaxBudgetTokens)
		}
		cfg.MaxBudgetTokens = left
	}
	if cfg.MaxCostUSD > 0 && cost >= 0 {
		left := cfg.MaxCostUSD - cost
		if left <= 0 {
			return fmt.Errorf("the cost limit of $%.4f is used up", cfg.MaxCostUSD)
		}
		cfg.MaxCostUSD = left
	}
	return nil
}

// explorers names the parent's tools that declare tools.Explorer, in the
// parent's order (visible ones, then deferred ones): the tools of the
// read-only roles.
func (t *Runner) explorers() []string {
	var names []string
	for _, name := range t.o.Registry.Names() {
		if tl, ok := t.o.Registry.Get(name); ok && tools.Explores(tl) {
			names = append(names, name)
		}
	}
	for _, tl := range t.o.Registry.Deferred() {
		if tools.Explores(tl) {
			names = append(names, tl.Name())
		}
	}
	return names
}

// childRegistry picks the child's tools from the parent's: the visible ones
// in the parent's order, then the still-deferred ones (found again through
// the child's own tool_search). keep, when set, picks the tools a role may
// have; tools bound to the registry are always rebound to the child's. A
// child never gets the tools only the main agent may have.
func (t *Runner) childRegistry(keep func(name string) bool) *tools.Registry {
	child := tools.NewRegistry()
	allowed := func(tl tools.Tool) bool {
		if tools.IsMainAgentOnly(tl) {
			return false
		}
		_, bound := tl.(tools.RegistryBound)
		return keep == nil || bound || keep(tl.Name())
	}
	for _, name := range t.o.Registry.Names() {
		tl, ok := t.o.Registry.Get(name)
		if !ok || !allowed(tl) {
			continue
		}
		if b, ok := tl.(tools.RegistryBound); ok {
			child.Register(b.Rebind(child))
			continue
		}
		child.Register(tl)
		child.Activate(name) // a deferred tool the parent already loaded
	}
	for _, tl := range t.o.Registry.Deferred() {
		if allowed(tl) {
			child.Register(tl)
		}
	}
	return child
}

// forkRegistry copies the parent's registry so the tool list is the same
// byte for byte (order, loaded deferred tools, the agent tool itself); the
// copy's registry-bound tools (tool_search) work on the copy only.
func (t *Runner) forkRegistry() *tools.Registry {
	child := tools.NewRegistry()
	names := t.o.Registry.Names()
	for _, name := range names {
		tl, ok := t.o.Registry.Get(name)
		if !ok {
			continue
		}
		if b, ok := tl.(tools.RegistryBound); ok {
			tl = b.Rebind(child)
		}
		child.Register(tl)
	}
	for _, name := range names {
		child.Activate(name)
	}
	for _, tl := range t.o.Registry.Deferred() {
		child.Register(tl)
	}
	return child
}

// forkHistory is the parent's history with every call of its last answer
// answered, so the fork's request repeats the parent's messages unchanged
// and only adds to them.
func forkHistory(h []llm.Message, call Call) []llm.Message {
	out := append([]llm.Message(nil), h...)
	if len(out) == 0 || out[len(out)-1].Role != llm.RoleAssistant {
		return out
	}
	uses := out[len(out)-1].ToolUses()
	if len(uses) == 0 {
		return out
	}
	results := llm.Message{Role: llm.RoleUser}
	mine := false
	for _, u := range uses {
		text := "This call runs separately in the main agent; it is not your task."
		if !mine && u.Name == call.Tool && bytes.Equal(bytes.TrimSpace(u.Input), bytes.TrimSpace(call.Input)) {
			mine = true
			text = "Forked: you are the sub-agent this call started. Your task follows."
		}
		results.Content = append(results.Content, llm.Block{Type: llm.BlockToolResult, ID: u.ID, Content: text})
	}
	return append(out, results)
}

func forkDirective(in Job) string {
	return fmt.Sprintf(`You are a fork of the main agent, started for one task: %q. The conversation above is your context; you share it, but from here on you work alone and nobody can answer questions.
Do not start sub-agents, enter plan mode or schedule wake-ups (those tools are refused in a fork).

Task:
%s

Your final message is the only thing the main agent receives (it does not see your tool calls): make it a complete, concise report of what you found or did, with file paths and line numbers where they help, and anything left open.`, in.Description, in.Prompt)
}

func rolePrompt(in Job, r Role) string {
	return fmt.Sprintf(`# Sub-agent
You are a sub-agent (type %s) started by hew's main agent for one task: %q.
You start with an empty context: the task in the user message is all you know about the conversation. Work on your own with your tools; nobody can answer questions, so decide sensibly and say what you assumed.
%s
Your final message is the only thing the main agent receives (it does not see your tool calls): make it a complete, concise report of what you found or did, with file paths and line numbers where they help, and anything left open.`,
		in.Type, in.Description, r.Prompt)
}
