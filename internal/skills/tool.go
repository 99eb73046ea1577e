package skills

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/tools"
)

//go:embed skill_tool.md
var toolDescription string

var toolSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the skill's name"},"arguments":{"type":"string","description":"arguments for the skill"}},"required":["name"],"additionalProperties":false}`)

// Tool is the skill tool: it returns a skill's instructions to the model.
type Tool struct{ skills []Skill }

// NewTool makes the skill tool over the discovered skills.
func NewTool(list []Skill) *Tool { return &Tool{skills: list} }

// Name implements tools.Tool.
func (*Tool) Name() string { return "skill" }

// Description implements tools.Tool.
func (*Tool) Description() string { return toolDescription }

// Schema implements tools.Tool.
func (*Tool) Schema() json.RawMessage { return toolSchema }

// ReadOnly implements tools.Tool: loading instructions changes nothing.
func (*Tool) ReadOnly(json.RawMessage) bool { return true }

// Find returns the skill called name.
func (t *Tool) Find(name string) (Skill, bool) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	for _, s := range t.skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Run implements tools.Tool.
func (t *Tool) Run(_ context.Context, _ *tools.Env, input json.RawMessage) (tools.Result, error) {
	var in struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("invalid input: %w", err)
	}
	s, ok := t.Find(in.Name)
	if !ok {
		names := make([]string, len(t.skills))
		for i, s := range t.skills {
			names[i] = s.Name
		}
		if len(names) == 0 {
			return tools.Result{}, fmt.Errorf("no skill %q: no skills are installed", in.Name)
		}
		return tools.Result{}, fmt.Errorf("no skill %q; available: %s", in.Name, strings.Join(names, ", "))
	}
	return tools.Result{Content: fmt.Sprintf("Skill %q (%s):\n\n%s", s.Name, s.Path, s.Expand(in.Arguments))}, nil
}
