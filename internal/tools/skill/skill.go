// Package skill is the skill tool: the model loads a skill's instructions
// by name, or runs a fork skill in a sub-agent. Finding, parsing and
// expanding skills is internal/skills.
package skill

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/tools"
)

// Name is the tool's name (SPEC section 4).
const Name = "skill"

//go:embed skill.md
var description embed.FS

var spec = tools.NewSpec(description, Name, `{"type":"object","properties":{"name":{"type":"string","description":"the skill's name"},"arguments":{"type":"string","description":"arguments for the skill"}},"required":["name"],"additionalProperties":false}`).Verbatim()

// ForkFunc runs a fork skill's expanded prompt in a fresh sub-agent limited
// to the skill's allowed tools and returns the sub-agent's final answer (as
// the agent tool renders it). The session provides it (core.Session runs
// it as a sub-agent task).
type ForkFunc func(ctx context.Context, env *tools.Env, s skills.Skill, prompt string) (tools.Result, error)

// Tool is the skill tool: it returns a skill's instructions to the model,
// or for a fork skill the answer of the sub-agent that followed them.
type Tool struct {
	tools.Spec
	skills []skills.Skill
	fork   ForkFunc
	reg    *tools.Registry
}

// New makes the skill tool over the discovered skills. fork runs
// context: fork skills; nil refuses them with an error the model can read.
// reg is the registry the tool joins, whose tools say whether a fork
// skill's allowed tools are read-only.
func New(list []skills.Skill, fork ForkFunc, reg *tools.Registry) *Tool {
	return &Tool{Spec: spec, skills: list, fork: fork, reg: reg}
}

type toolInput struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ReadOnly implements tools.Tool: loading instructions changes nothing; a
// fork skill is read-only only if every tool its allowed-tools names is,
// by that tool's own account (its ReadOnly for any input), in the registry
// the skill tool was given. Without one, fork skills are not read-only.
func (t *Tool) ReadOnly(raw json.RawMessage) bool {
	var in toolInput
	if json.Unmarshal(raw, &in) != nil {
		return false
	}
	s, ok := t.Find(in.Name)
	if !ok || !s.Fork() {
		return true
	}
	if s.AllowedTools == nil || t.reg == nil {
		return false
	}
	for _, r := range s.AllowedTools {
		tl, ok := t.reg.Get(strings.SplitN(r, "(", 2)[0])
		if !ok || !tl.ReadOnly(nil) {
			return false
		}
	}
	return true
}

// Find returns the skill called name.
func (t *Tool) Find(name string) (skills.Skill, bool) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	for _, s := range t.skills {
		if s.Name == name {
			return s, true
		}
	}
	return skills.Skill{}, false
}

// Check refuses unknown skills, listing the available ones.
func (t *Tool) Check(_ *tools.Env, raw json.RawMessage) error {
	var in toolInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return fmt.Errorf("invalid input: %w", err)
	}
	s, ok := t.Find(in.Name)
	if ok && s.ModelInvocable {
		return nil
	}
	var names []string
	for _, s := range t.skills {
		if s.ModelInvocable {
			names = append(names, s.Name)
		}
	}
	if ok {
		return fmt.Errorf("skill %q is for the user to run (/%s); it has disable-model-invocation set", in.Name, in.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("no skill %q: no skills are installed", in.Name)
	}
	return fmt.Errorf("no skill %q; available: %s", in.Name, strings.Join(names, ", "))
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env *tools.Env, raw json.RawMessage) (tools.Result, error) {
	if err := t.Check(env, raw); err != nil {
		return tools.Result{}, err
	}
	var in toolInput
	_ = json.Unmarshal(raw, &in)
	s, _ := t.Find(in.Name)
	if !s.Fork() {
		return tools.Result{Content: fmt.Sprintf("Skill %q (%s). Follow these instructions now:\n\n%s", s.Name, s.Path, s.Expand(in.Arguments))}, nil
	}
	if t.fork == nil {
		return tools.Result{}, fmt.Errorf("skill %q runs in a sub-agent (context: fork), and sub-agents are not available here", s.Name)
	}
	res, err := t.fork(ctx, env, s, s.Expand(in.Arguments))
	if err != nil {
		return res, err
	}
	res.Content = fmt.Sprintf("Skill %q ran in a sub-agent (context: fork). Its final answer:\n\n%s", s.Name, res.Content)
	return res, nil
}

// SearchEntries implements tools.Searchable: tool_search finds skills by
// name, description and when_to_use, including those the index left out.
func (t *Tool) SearchEntries() []tools.SearchEntry {
	out := make([]tools.SearchEntry, 0, len(t.skills))
	for _, s := range t.skills {
		if !s.ModelInvocable {
			continue
		}
		out = append(out, tools.SearchEntry{
			Name: s.Name,
			Kind: "skill",
			Line: skills.Line(s),
			Text: s.Description + " " + s.WhenToUse,
		})
	}
	return out
}
