package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/scenario"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/plan"
	"github.com/hew-dev/hew/internal/tools"
	plantool "github.com/hew-dev/hew/internal/tools/plan"
)

// TestPlanModeThroughTheAgent runs the whole cycle with the mock model, the
// real pipeline and the real permission engine: find the tool, enter plan
// mode, get a write denied, exit with a plan, then write.
func TestPlanModeThroughTheAgent(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hewHome := filepath.Join(t.TempDir(), "hew")
	sc, err := scenario.Parse([]byte(`{"turns": [
	  {"tool_calls": [{"name": "tool_search", "input": {"query": "select:enter_plan_mode"}}]},
	  {"tool_calls": [{"name": "enter_plan_mode", "input": {}}]},
	  {"tool_calls": [{"name": "write_file", "input": {"file_path": "notes.txt", "content": "too early"}}]},
	  {"tool_calls": [{"name": "exit_plan_mode", "input": {"plan": "# Write the notes file\n\n1. Create notes.txt"}}]},
	  {"tool_calls": [{"name": "write_file", "input": {"file_path": "notes.txt", "content": "planned"}}]},
	  {"text": "Done."}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := permission.New(permission.Options{Root: root, HewHome: hewHome})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	var ag *agent.Agent
	var decided []string
	set := plantool.NewTools(plantool.Options{
		Decide: func(_ context.Context, text, path string) (plan.Choice, string) {
			decided = append(decided, text+"|"+path)
			return plan.ChoiceExecute, ""
		},
		Mode:     func() permission.Mode { return ag.Mode() },
		SetMode:  func(m permission.Mode) { ag.SetMode(m) },
		PlansDir: filepath.Join(hewHome, "plans"),
		Now:      func() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) },
		Registry: reg,
	})
	for _, tl := range set.Tools() {
		reg.Register(tl)
	}
	approver := &planApprover{}
	ag, err = agent.New(agent.Config{Provider: mock.New(sc), Model: "mock", Tools: reg, Permissions: eng,
		Mode: permission.ModeAcceptEdits, Env: &tools.Env{Root: root}, Approver: approver})
	if err != nil {
		t.Fatal(err)
	}
	res := ag.Run(context.Background(), "plan, then write notes.txt")
	if res.StopReason != agent.StopCompleted {
		t.Fatalf("turn: %+v", res)
	}
	var results []llm.Block
	for _, m := range ag.History() {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				results = append(results, b)
			}
		}
	}
	if len(results) != 5 {
		t.Fatalf("%d tool results", len(results))
	}
	if r := results[2]; !r.IsError || !strings.Contains(r.Content, "plan mode") {
		t.Errorf("write in plan mode: %+v", r)
	}
	planPath := filepath.Join(hewHome, "plans", "2026-11-30-write-the-notes-file.md")
	if r := results[3]; r.IsError || !strings.Contains(r.Content, planPath) {
		t.Errorf("exit_plan_mode: %+v", r)
	}
	if r := results[4]; r.IsError {
		t.Errorf("write after the plan: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(root, "notes.txt")); err != nil || string(b) != "planned" {
		t.Errorf("notes.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(planPath); err != nil {
		t.Errorf("plan file: %v", err)
	}
	if ag.Mode() != permission.ModeAcceptEdits {
		t.Errorf("mode after the plan = %s", ag.Mode())
	}
	if len(res.Denials) != 1 || res.Denials[0].Tool != "write_file" {
		t.Errorf("denials = %+v", res.Denials)
	}
	// Leaving plan mode asked the user, once, showing the plan; no
	// permission question came before it (acceptEdits approves no plan).
	if len(decided) != 1 || !strings.Contains(decided[0], "Write the notes file") || !strings.HasSuffix(decided[0], planPath) {
		t.Errorf("plan decisions asked: %q", decided)
	}
	if len(approver.asked) != 0 {
		t.Errorf("approvals asked: %+v", approver.asked)
	}
}

// planApprover approves leaving plan mode and nothing else.
type planApprover struct{ asked []agent.ApprovalRequest }

func (p *planApprover) Approve(_ context.Context, req agent.ApprovalRequest) (agent.Approval, string) {
	p.asked = append(p.asked, req)
	if req.Tool == "exit_plan_mode" {
		return agent.ApproveOnce, ""
	}
	return agent.ApproveDeny, "not in this test"
}
