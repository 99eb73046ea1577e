package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/subagent"
)

func TestVerifyAsksForMissingVerdict(t *testing.T) {
	prov := agenttest.NewProvider(
		agenttest.Step{Text: "Ran go test ./...: ok."},
		agenttest.Step{Text: "Commands: go test ./... printed ok\nVERDICT: FAIL"},
	)
	pa := newParent(t, prov, project(t), permission.ModeDefault)
	res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"check","prompt":"verify the fix","subagent_type":"verify"}`))
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if !strings.Contains(res.Content, "VERDICT: FAIL") || !strings.Contains(res.Content, "verdict FAIL]") || !strings.Contains(res.Content, "2 round trips") {
		t.Errorf("result:\n%s", res.Content)
	}
	reqs := prov.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Text(), "VERDICT: PASS, VERDICT: FAIL or VERDICT: PARTIAL") {
		t.Fatalf("follow-up request missing: %d requests", len(reqs))
	}
	if sys := reqs[0].System[len(reqs[0].System)-1].Text; !strings.Contains(sys, "try to break the work") {
		t.Errorf("verify prompt is not adversarial: %s", sys)
	}
	if pa.made[0].Mode != permission.ModeDefault {
		t.Errorf("verify decides in the parent's mode (it runs tests), got %s", pa.made[0].Mode)
	}
}

func TestPlanNeedsCriticalFiles(t *testing.T) {
	prov := agenttest.NewProvider(agenttest.Step{Text: "1. change a.go\n\n## Critical files\n- `a.go` - the handler"})
	pa := newParent(t, prov, project(t), permission.ModeDefault)
	res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"design","prompt":"plan it","subagent_type":"plan"}`))
	if err != nil || strings.Contains(res.Content, "lacks") || len(prov.Requests()) != 1 {
		t.Fatalf("%v %s (%d requests)", err, res.Content, len(prov.Requests()))
	}
	// Still missing after the follow-up: the result says so.
	prov = agenttest.NewProvider(agenttest.Step{Text: "just do it"}, agenttest.Step{Text: "really, just do it"})
	pa = newParent(t, prov, project(t), permission.ModeDefault)
	res, _ = pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"design","prompt":"plan it","subagent_type":"plan"}`))
	if !strings.Contains(res.Content, `lacks a section headed "## Critical files"`) || !strings.Contains(res.Content, "really, just do it") {
		t.Errorf("result:\n%s", res.Content)
	}
}

func TestExploreCannotWrite(t *testing.T) {
	root := project(t)
	prov := agenttest.NewProvider(
		agenttest.Step{Calls: []llm.Block{
			agenttest.Call("s1", "run_shell", `{"command":"touch made.txt"}`),
			agenttest.Call("s2", "write_file", `{"file_path":"made2.txt","content":"x"}`),
			agenttest.Call("s3", "run_shell", `{"command":"cat greeting.txt"}`),
		}},
		agenttest.Step{Text: "could only read"},
	)
	pa := newParent(t, prov, root, permission.ModeBypass)
	res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"look","prompt":"try","subagent_type":"explore"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"made.txt", "made2.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("explore created %s", f)
		}
	}
	child := toolResults(pa.rec.records[0].Messages)
	if len(child) != 3 || !child[0].IsError || !child[1].IsError || child[2].IsError || !strings.Contains(child[2].Content, "hello from the greeting file") {
		t.Errorf("child results: %+v", child)
	}
	if !strings.Contains(res.Content, "could only read") {
		t.Errorf("result: %s", res.Content)
	}
}

func TestUserRoles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("reviewer.md", "---\ndescription: reviews diffs: style and bugs\ntools: Read, Bash(git diff:*)\nmodel: review-model\nmax-turns: 7\nmax-tokens: 5000\n---\nReview the diff you are given.")
	write("explore.md", "---\ndescription: mine\n---\nx")
	write("nodesc.md", "---\ntools: Read\n---\nx")
	write("badtools.md", "---\ndescription: d\ntools: Read, Teleport\n---\nx")
	write("notes.txt", "ignored")
	roles, problems := subagent.LoadRoles(filepath.Join(dir, "missing"), dir)
	if len(roles) != 1 || len(problems) != 3 {
		t.Fatalf("roles %v problems %q", roles, problems)
	}
	for _, want := range []string{"built-in role", "no description", "Teleport"} {
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("problems lack %q: %q", want, problems)
		}
	}
	r := roles["reviewer"]
	if r.Description != "reviews diffs: style and bugs" || r.Model != "review-model" || r.MaxTurns != 7 || r.MaxTokens != 5000 || strings.Join(r.Tools, ",") != "read_file,run_shell(git diff:*)" {
		t.Fatalf("role %+v", r)
	}

	root := project(t)
	prov := agenttest.NewProvider(
		agenttest.Step{Calls: []llm.Block{
			agenttest.Call("a", "run_shell", `{"command":"git diff --stat"}`),
			agenttest.Call("b", "run_shell", `{"command":"git diff; touch x"}`),
		}},
		agenttest.Step{Text: "looks fine"},
	)
	pa := newParent(t, prov, root, permission.ModeBypass)
	pa.with(func(o *subagent.Options) {
		*o = subagent.Options{NewAgent: o.NewAgent, Base: o.Base, Registry: o.Registry, Roles: roles}
	})
	if !strings.Contains(pa.tool.Description(), "`reviewer` — reviews diffs") {
		t.Errorf("description should list the user role:\n%s", pa.tool.Description())
	}
	res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"review","prompt":"review HEAD","subagent_type":"reviewer"}`))
	if err != nil || !strings.Contains(res.Content, "looks fine") {
		t.Fatalf("%v %s", err, res.Content)
	}
	c := pa.made[0]
	if c.Model != "review-model" || c.MaxTurns != 7 || c.MaxBudgetTokens != 5000 {
		t.Errorf("child model %q turns %d", c.Model, c.MaxTurns)
	}
	var names []string
	for _, s := range prov.Requests()[0].Tools {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"read_file", "list_files", "grep_search", "run_shell", "tool_search"}) {
		t.Errorf("reviewer tools %v", names)
	}
	if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
		t.Error("a command outside the role's tools ran")
	}
	if d := res.Content; !strings.Contains(d, "1 calls denied") {
		t.Errorf("the compound command should be refused: %s", d)
	}
}

func TestForkSharesParentPrefix(t *testing.T) {
	prov := agenttest.NewProvider(
		agenttest.Step{Text: "Forking.", Calls: []llm.Block{agenttest.Call("f1", "agent", `{"description":"side task","prompt":"count the files"}`)}},
		agenttest.Step{Text: "There are 2 files."},
		agenttest.Step{Text: "The fork counted 2 files."},
	)
	pa := newParent(t, prov, project(t), permission.ModeDefault)
	pa.with(func(o *subagent.Options) { o.History = pa.agent.History })
	res := pa.agent.Run(context.Background(), "How many files? Fork for it.")
	if res.StopReason != agent.StopCompleted || res.Text != "The fork counted 2 files." {
		t.Fatalf("parent: %+v", res)
	}
	reqs := prov.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	parent, fork := reqs[0], reqs[1]
	same := func(a, b any) bool {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return string(x) == string(y)
	}
	if !same(parent.System, fork.System) || !same(parent.Tools, fork.Tools) || parent.Model != fork.Model {
		t.Fatal("the fork's system, tools or model differ from the parent's")
	}
	n := len(parent.Messages)
	if len(fork.Messages) != n+3 || !same(parent.Messages, fork.Messages[:n]) {
		t.Fatalf("the fork's messages do not start with the parent's (%d vs %d)", len(fork.Messages), n)
	}
	if !same(fork.Messages[n], pa.agent.History()[n]) || fork.Messages[n+1].Content[0].ID != "f1" || !strings.Contains(fork.Messages[n+2].Text(), "count the files") {
		t.Errorf("fork tail: %+v", fork.Messages[n:])
	}
	results := toolResults(pa.agent.History())
	if len(results) != 1 || !strings.Contains(results[0].Content, "There are 2 files.") || !strings.Contains(results[0].Content, "[sub-agent fork:") {
		t.Errorf("parent results: %+v", results)
	}
	if err := agenttest.CheckPairing(pa.agent.History()); err != nil {
		t.Fatal(err)
	}
}

func TestParallelAgentCalls(t *testing.T) {
	const n = 3
	var arrived, timedOut atomic.Int32
	all := make(chan struct{})
	wait := func(ctx context.Context) {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(5 * time.Second):
			timedOut.Add(1)
		case <-ctx.Done():
		}
	}
	steps := []agenttest.Step{{Calls: []llm.Block{
		agenttest.Call("a", "agent", `{"description":"one","prompt":"p1","subagent_type":"general"}`),
		agenttest.Call("b", "agent", `{"description":"two","prompt":"p2","subagent_type":"general"}`),
		agenttest.Call("c", "agent", `{"description":"three","prompt":"p3","subagent_type":"verify"}`),
	}}}
	for i := 0; i < n; i++ {
		steps = append(steps, agenttest.Step{Text: "child done\nVERDICT: PASS", Before: wait})
	}
	steps = append(steps, agenttest.Step{Text: "all three done"})
	pa := newParent(t, agenttest.NewProvider(steps...), project(t), permission.ModeDefault)
	res := pa.agent.Run(context.Background(), "do three things")
	if res.Text != "all three done" || arrived.Load() != n {
		t.Fatalf("%+v arrived %d", res, arrived.Load())
	}
	if timedOut.Load() != 0 {
		t.Fatal("the children did not run at the same time")
	}
	if results := toolResults(pa.agent.History()); len(results) != n {
		t.Errorf("results %d", len(results))
	}
}

func TestCancelStopsParallelChildren(t *testing.T) {
	var started atomic.Int32
	all := make(chan struct{})
	block := func(ctx context.Context) {
		if started.Add(1) == 2 {
			close(all)
		}
		<-ctx.Done()
	}
	prov := agenttest.NewProvider(
		agenttest.Step{Calls: []llm.Block{
			agenttest.Call("a", "agent", `{"description":"one","prompt":"p1","subagent_type":"general"}`),
			agenttest.Call("b", "agent", `{"description":"two","prompt":"p2","subagent_type":"explore"}`),
		}},
		agenttest.Step{Text: "never", Before: block},
		agenttest.Step{Text: "never", Before: block},
	)
	pa := newParent(t, prov, project(t), permission.ModeDefault)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan agent.TurnResult, 1)
	go func() { done <- pa.agent.Run(ctx, "two at once") }()
	select {
	case <-all:
	case <-time.After(5 * time.Second):
		t.Fatal("the children did not start together")
	}
	cancel()
	select {
	case res := <-done:
		if res.StopReason != agent.StopAborted {
			t.Fatalf("%+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("children kept running after the cancel")
	}
	if err := agenttest.CheckPairing(pa.agent.History()); err != nil {
		t.Fatal(err)
	}
	if len(pa.rec.records) != 2 {
		t.Errorf("%d records", len(pa.rec.records))
	}
}
