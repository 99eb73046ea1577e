package subagent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

func BenchmarkChildSetup(b *testing.B) {
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	tl := New(Options{Registry: reg, Base: func() agent.Config { return agent.Config{} }})
	base := agent.Config{Provider: agenttest.NewProvider(), Env: &tools.Env{Root: "/p"}, System: []llm.SystemBlock{{Text: "core"}}}
	in := Job{Description: "d", Prompt: "p", Type: TypeGeneral}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tl.childConfig(base, base.Env, job{in: in, role: tl.roles[TypeGeneral]}); err != nil {
			b.Fatal(err)
		}
	}
}

// An explorer role's checker refuses every tool outside its set, naming the
// set, and leaves the rest to the session's checks.
func TestOnlyToolsChecker(t *testing.T) {
	c := onlyTools(nil, []string{"read_file", "probe"})
	v := c.Check(permission.Request{Tool: "write_file"})
	if v.Decision != permission.Deny || v.Reason != "write_file is not in the allowed tools (read_file, probe)" || v.Source != "subagent-tools" {
		t.Fatalf("outside the set: %+v", v)
	}
	if v := c.Check(permission.Request{Tool: "probe"}); v.Decision != permission.Allow {
		t.Fatalf("inside the set without an engine: %+v", v)
	}
	if v := onlyTools(nil, nil).Check(permission.Request{Tool: "read_file"}); v.Decision != permission.Deny || v.Reason != "read_file is not in the allowed tools (none)" {
		t.Fatalf("empty set: %+v", v)
	}
}

// mainOnly is a tool only the main agent may use (as plan mode and the
// loop's schedule declare).
type mainOnly struct{ name string }

func (m mainOnly) Name() string                { return m.name }
func (mainOnly) Description() string           { return "acts on the main conversation" }
func (mainOnly) Schema() json.RawMessage       { return json.RawMessage(`{"type":"object"}`) }
func (mainOnly) ReadOnly(json.RawMessage) bool { return false }
func (mainOnly) MainAgentOnly() bool           { return true }
func (mainOnly) Run(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "changed the main conversation"}, nil
}

// A fork keeps the parent's tool list byte for byte (the prompt cache is
// shared) but refuses every tool that declares tools.MainAgentOnly — the
// one that started it and any other, such as plan mode — and leaves the
// rest to the session's checks.
func TestForkRefusesMainAgentOnlyTools(t *testing.T) {
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	reg.Register(mainOnly{"spawn"})
	reg.Register(mainOnly{"steer"})
	tl := New(Options{Registry: reg, Base: func() agent.Config { return agent.Config{} },
		History: func() []llm.Message { return nil }})
	base := agent.Config{Provider: agenttest.NewProvider(), Env: &tools.Env{Root: "/p"}, System: []llm.SystemBlock{{Text: "core"}}}
	cfg, err := tl.childConfig(base, base.Env, job{in: Job{Description: "d", Prompt: "p"}, fork: true, from: Call{Tool: "spawn"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Tools.Names(), reg.Names()) {
		t.Fatalf("the fork's tools %v differ from the parent's %v", cfg.Tools.Names(), reg.Names())
	}
	for tool, want := range map[string]string{
		"spawn": "a forked sub-agent cannot start sub-agents",
		"steer": "steer acts on the main conversation",
	} {
		v := cfg.Permissions.Check(permission.Request{Tool: tool})
		if v.Decision != permission.Deny || !strings.HasPrefix(v.Reason, want) || v.Source != "subagent-fork" {
			t.Errorf("%s in a fork: %+v", tool, v)
		}
	}
	if v := cfg.Permissions.Check(permission.Request{Tool: "read_file"}); v.Decision == permission.Deny {
		t.Errorf("read_file in a fork: %+v", v)
	}
}
