// Package agent is the agent tool: the model hands a self-contained task to
// a sub-agent and gets back only its final report. Running the child (roles,
// tool sets, budgets, worktrees, the fork path) is internal/subagent.
package agent

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/subagent"
	"github.com/hew-dev/hew/internal/tools"
)

// Name is the tool name the model sees (SPEC section 4).
const Name = "agent"

//go:embed agent.md
var description embed.FS

var spec = tools.NewSpec(description, Name, `{"type":"object","properties":{`+
	`"description":{"type":"string","minLength":1,"description":"3-5 words naming the task"},`+
	`"prompt":{"type":"string","minLength":1,"description":"the complete task"},`+
	`"subagent_type":{"type":"string","description":"explore, plan, verify, general or a user-defined role; leave it out to fork your own context"},`+
	`"isolation":{"type":"string","enum":["worktree"],"description":"worktree: work in a separate git worktree on a new branch (for writers that must not touch the checkout)"}},`+
	`"required":["description","prompt"],"additionalProperties":false}`)

// Tool is the agent tool over the session's sub-agent runner.
type Tool struct {
	tools.Spec
	r    *subagent.Runner
	desc string
}

// New makes the agent tool. Its description lists the user-defined roles
// the runner knows besides the built-in ones.
func New(r *subagent.Runner) *Tool {
	t := &Tool{Spec: spec, r: r}
	var b strings.Builder
	for _, role := range r.Roles() {
		if role.Source != "built-in" {
			fmt.Fprintf(&b, "  - `%s` — %s\n", role.Name, role.Description)
		}
	}
	if b.Len() > 0 {
		t.desc = "\n\nRoles defined for this project or user (pass the name as `subagent_type`):\n" + strings.TrimRight(b.String(), "\n")
	}
	return t
}

// Runner is the runner the tool starts sub-agents with.
func (t *Tool) Runner() *subagent.Runner { return t.r }

// Description implements tools.Tool: agent.md, then the user's roles.
func (t *Tool) Description() string { return t.Spec.Description() + t.desc }

type input struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Type        string `json:"subagent_type"`
	Isolation   string `json:"isolation"`
}

func (t *Tool) decode(raw json.RawMessage) (subagent.Job, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return subagent.Job{}, fmt.Errorf("decode input: %w", err)
	}
	j := subagent.Job{Description: in.Description, Prompt: in.Prompt, Type: strings.TrimSpace(in.Type), Isolation: in.Isolation}
	if j.Type == "" {
		j.Type = t.r.DefaultType()
	}
	return j, nil
}

// ReadOnly reports true for the read-only roles, so explore agents may
// start while the model is still streaming; others may change files.
func (t *Tool) ReadOnly(raw json.RawMessage) bool {
	j, err := t.decode(raw)
	if err != nil {
		return false
	}
	r, ok := t.r.Role(j.Type)
	return ok && r.ReadOnlyShell && j.Isolation == ""
}

// Concurrent implements tools.Concurrent: several agent calls of one
// answer run side by side (bounded by subagent.Options.Parallel).
func (*Tool) Concurrent(json.RawMessage) bool { return true }

// MainAgentOnly implements tools.MainAgentOnly: sub-agents start no
// sub-agents of their own.
func (*Tool) MainAgentOnly() bool { return true }

// SessionOnly implements tools.SessionOnly: a sub-agent runs inside a hew
// session, with its model.
func (*Tool) SessionOnly() bool { return true }

// SelfTimed implements tools.SelfTimed: a sub-agent is bounded by its turn
// limit and budget, not by the per-call timeout.
func (*Tool) SelfTimed() bool { return true }

// Check refuses unknown types (listing the valid ones) and empty tasks.
func (t *Tool) Check(_ *tools.Env, raw json.RawMessage) error {
	j, err := t.decode(raw)
	if err != nil {
		return err
	}
	return t.r.Check(j)
}

// Run starts a child agent on the task and returns its final report.
func (t *Tool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	j, err := t.decode(raw)
	if err != nil {
		return tools.Result{}, err
	}
	return t.r.Start(ctx, env, j, subagent.Call{Tool: Name, Input: raw})
}
