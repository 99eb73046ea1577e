package subagent

import (
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
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
