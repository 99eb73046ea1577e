package subagent

import (
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
	c := onlyTools{names: []string{"read_file", "probe"}}
	v := c.Check(permission.Request{Tool: "write_file"})
	if v.Decision != permission.Deny || v.Reason != "write_file is not in the allowed tools (read_file, probe)" || v.Source != "subagent-tools" {
		t.Fatalf("outside the set: %+v", v)
	}
	if v := c.Check(permission.Request{Tool: "probe"}); v.Decision != permission.Allow {
		t.Fatalf("inside the set without an engine: %+v", v)
	}
	if v := (onlyTools{}).Check(permission.Request{Tool: "read_file"}); v.Decision != permission.Deny || v.Reason != "read_file is not in the allowed tools (none)" {
		t.Fatalf("empty set: %+v", v)
	}
}
