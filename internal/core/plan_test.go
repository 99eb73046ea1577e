package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/plan"
	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/tools"
)

const planText = "# Write the notes\n1. create notes.txt"

// planSession is a session in plan mode with the built-in tools and the
// real permission engine.
func planSession(t *testing.T, decide plan.Decider, steps ...agenttest.Step) (*rig, *Session) {
	t.Helper()
	r := newRig(t, steps...)
	root, _ := filepath.EvalSymlinks(r.root)
	r.root = root
	eng, err := permission.New(permission.Options{Root: root, HewHome: r.home})
	if err != nil {
		t.Fatal(err)
	}
	s := r.session(t, func(o *Options) {
		o.Root = root
		reg := tools.NewRegistry()
		tools.RegisterBuiltins(reg)
		o.Registry, o.Permissions, o.Mode, o.DecidePlan = reg, eng, permission.ModePlan, decide
		o.Env = &tools.Env{Root: root, Reads: tools.NewReadTracker()}
	})
	return r, s
}

var (
	loadExit  = agenttest.Step{Calls: []llm.Block{agenttest.Call("t1", "tool_search", `{"query":"select:exit_plan_mode"}`)}}
	earlyEdit = agenttest.Step{Calls: []llm.Block{agenttest.Call("w1", "write_file", `{"file_path":"notes.txt","content":"too early"}`)}}
	exitPlan  = agenttest.Step{Calls: []llm.Block{agenttest.Call("p1", "exit_plan_mode", `{"plan":"# Write the notes\n1. create notes.txt"}`)}}
	doEdit    = agenttest.Step{Calls: []llm.Block{agenttest.Call("w2", "write_file", `{"file_path":"notes.txt","content":"planned"}`)}}
)

func planFile(t *testing.T, home string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, "plans", "*.md"))
	if len(files) != 1 {
		t.Fatalf("plan files %v", files)
	}
	b, _ := os.ReadFile(files[0])
	return string(b)
}

// Plan mode refuses the edit where the tool runs; "execute after clearing
// the context" starts a fresh conversation with the plan, which then edits.
func TestPlanClearAndExecute(t *testing.T) {
	var asked []string
	decide := func(_ context.Context, text, path string) (plan.Choice, string) {
		asked = append(asked, text)
		return plan.ChoiceClearAndExecute, ""
	}
	r, s := planSession(t, decide, loadExit, earlyEdit, exitPlan, doEdit, agenttest.Step{Text: "Done."})
	s.plans.Remember(permission.ModeAcceptEdits) // as /plan from acceptEdits does
	first := s.ID()
	res := s.Submit(context.Background(), "plan then write notes.txt")
	if res.StopReason != agent.StopCompleted || res.Text != "Done." {
		t.Fatalf("result %+v", res)
	}
	if len(asked) != 1 || asked[0] != planText || !strings.Contains(planFile(t, r.home), "create notes.txt") {
		t.Fatalf("asked %q", asked)
	}
	if b, _ := os.ReadFile(filepath.Join(r.root, "notes.txt")); string(b) != "planned" {
		t.Fatalf("notes.txt = %q", b)
	}
	if len(res.Denials) != 1 || !strings.Contains(res.Denials[0].Reason, "plan mode") {
		t.Errorf("denials %+v", res.Denials)
	}
	reqs := r.prov.Requests()
	fresh := reqs[3]
	if len(fresh.Messages) != 1 || !strings.Contains(fresh.Messages[0].Text(), "Carry out this plan") || !strings.Contains(fresh.Messages[0].Text(), "create notes.txt") {
		t.Errorf("the plan should start a fresh conversation: %+v", fresh.Messages)
	}
	if s.Mode() != permission.ModeAcceptEdits || s.ID() == first {
		t.Errorf("mode %s, id %s (was %s)", s.Mode(), s.ID(), first)
	}
}

// Nobody to ask (headless): the plan is saved, is the run's answer, and the
// run completes in plan mode without another request.
func TestPlanHeadlessPrintsAndCompletes(t *testing.T) {
	r, s := planSession(t, nil, loadExit, exitPlan, agenttest.Step{Text: "never sent"})
	res := s.Submit(context.Background(), "plan it")
	if res.StopReason != agent.StopCompleted || !strings.Contains(res.Text, planText) || !strings.Contains(res.Text, filepath.Join(r.home, "plans")) {
		t.Fatalf("result %+v", res)
	}
	if len(r.prov.Requests()) != 2 || s.Mode() != permission.ModePlan {
		t.Errorf("%d requests, mode %s", len(r.prov.Requests()), s.Mode())
	}
	planFile(t, r.home)
}

// acceptEdits never approves a plan: the mode before plan mode does not
// answer the question, the user does; keep planning passes the feedback.
func TestPlanKeepPlanningAndKeepPlan(t *testing.T) {
	answers := []plan.Choice{plan.ChoiceKeepPlanning, plan.ChoiceKeepPlan}
	decide := func(context.Context, string, string) (plan.Choice, string) {
		c := answers[0]
		answers = answers[1:]
		return c, "add a test step"
	}
	r, s := planSession(t, decide, loadExit, exitPlan, exitPlan, agenttest.Step{Text: "never sent"})
	s.plans.Remember(permission.ModeAcceptEdits)
	res := s.Submit(context.Background(), "plan it")
	if res.StopReason != agent.StopCompleted || !strings.Contains(res.Text, "Plan saved to") {
		t.Fatalf("result %+v", res)
	}
	var results []string
	for _, m := range s.History() {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				results = append(results, b.Content)
			}
		}
	}
	if len(results) != 3 || !strings.Contains(results[1], "keep planning") || !strings.Contains(results[1], "add a test step") || !strings.Contains(results[2], "carry it out themselves") {
		t.Fatalf("results %q", results)
	}
	if s.Mode() != permission.ModeAcceptEdits || len(r.prov.Requests()) != 3 {
		t.Errorf("mode %s, %d requests", s.Mode(), len(r.prov.Requests()))
	}
}

// A user skill's allowed-tools let its calls run without a question for
// the turn it started; a project skill's do not; the next turn asks again.
func TestInlineSkillAllowedTools(t *testing.T) {
	write := func(id, file string) agenttest.Step {
		return agenttest.Step{Calls: []llm.Block{agenttest.Call(id, "write_file", `{"file_path":"`+file+`","content":"x"}`)}}
	}
	r := newRig(t, write("a", "user.txt"), agenttest.Step{Text: "ok"}, write("b", "proj.txt"), agenttest.Step{Text: "ok"}, write("c", "later.txt"), agenttest.Step{Text: "ok"})
	root, _ := filepath.EvalSymlinks(r.root)
	eng, err := permission.New(permission.Options{Root: root, HewHome: r.home})
	if err != nil {
		t.Fatal(err)
	}
	s := r.session(t, func(o *Options) {
		o.Root = root
		reg := tools.NewRegistry()
		tools.RegisterBuiltins(reg)
		o.Registry, o.Permissions = reg, eng
		o.Env = &tools.Env{Root: root, Reads: tools.NewReadTracker()}
		o.Skills = []skills.Skill{
			{Name: "mine", Source: "user", UserInvocable: true, Body: "write", AllowedTools: []string{"write_file"}, Context: skills.ContextInline},
			{Name: "theirs", Source: "project", UserInvocable: true, Body: "write", AllowedTools: []string{"write_file"}, Context: skills.ContextInline},
		}
	})
	s.Submit(context.Background(), "/mine")
	s.Submit(context.Background(), "/theirs")
	s.Submit(context.Background(), "write later.txt")
	for file, want := range map[string]bool{"user.txt": true, "proj.txt": false, "later.txt": false} {
		if _, err := os.Stat(filepath.Join(root, file)); (err == nil) != want {
			t.Errorf("%s written = %v, want %v", file, err == nil, want)
		}
	}
}

func TestSkillGrantsKeepRuleSaving(t *testing.T) {
	var c agent.PermissionChecker = &skillGrants{}
	if _, ok := c.(agent.RuleSaver); !ok {
		t.Fatal("the grants layer hides the engine's rule saving")
	}
	eng, err := permission.New(permission.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := agent.PermissionChecker(eng).(agent.RuleSaver); !ok {
		t.Fatal("the engine no longer saves rules; this layer's Remember is stale")
	}
}
