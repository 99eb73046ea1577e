package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/scenario"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/subagent"
	"github.com/hew-dev/hew/internal/tools"
	plantool "github.com/hew-dev/hew/internal/tools/plan"
)

// recorder collects session records.
type recorder struct {
	mu      sync.Mutex
	records []subagent.Record
	msgs    int
}

func (r *recorder) Message(llm.Message) { r.mu.Lock(); r.msgs++; r.mu.Unlock() }
func (r *recorder) Record(kind string, v any) {
	if kind != "subagent" {
		return
	}
	r.mu.Lock()
	r.records = append(r.records, v.(subagent.Record))
	r.mu.Unlock()
}

type events struct {
	mu  sync.Mutex
	all []agent.Event
}

func (e *events) emit(ev agent.Event) { e.mu.Lock(); e.all = append(e.all, ev); e.mu.Unlock() }
func (e *events) notices() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.all {
		if n, ok := ev.(agent.Notice); ok {
			out = append(out, n.Text)
		}
	}
	return out
}

func project(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "greeting.txt"), []byte("hello from the greeting file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

type parent struct {
	cfg   agent.Config
	agent *agent.Agent
	tool  *Tool
	opts  subagent.Options // what pa.tool was built with
	reg   *tools.Registry
	rec   *recorder
	ev    *events
	added llm.Usage
	made  []agent.Config // child configs, as NewAgent saw them
	mu    sync.Mutex
}

func newParent(t *testing.T, p llm.Provider, root string, mode permission.Mode, extra ...tools.Tool) *parent {
	t.Helper()
	eng, err := permission.New(permission.Options{Root: root, HewHome: filepath.Join(t.TempDir(), "hew")})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	pa := &parent{rec: &recorder{}, ev: &events{}}
	pa.reg = reg
	pa.opts = subagent.Options{
		NewAgent: func(cfg agent.Config) (*agent.Agent, error) {
			pa.mu.Lock()
			pa.made = append(pa.made, cfg)
			pa.mu.Unlock()
			return agent.New(cfg)
		},
		Base: func() agent.Config {
			c := pa.cfg
			c.Mode = pa.agent.Mode()
			return c
		},
		Registry: reg,
		Used:     func() (llm.Usage, float64) { return pa.agent.Usage() },
		AddUsage: func(u llm.Usage, _ float64) { pa.mu.Lock(); pa.added.Add(u); pa.mu.Unlock() },
	}
	pa.with(nil)
	for _, tl := range extra {
		reg.Register(tl)
	}
	pa.cfg = agent.Config{
		Provider: p, Model: "mock", Tools: reg, Permissions: eng, Mode: mode,
		Env:      &tools.Env{Root: root, Reads: tools.NewReadTracker()},
		System:   []llm.SystemBlock{{Text: "You are hew.", Cache: true}},
		Recorder: pa.rec, Emit: pa.ev.emit, Approver: agent.Headless{}, SessionID: "s1",
	}
	pa.agent, err = agent.New(pa.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return pa
}

// with rebuilds the agent tool with edited options and registers it in
// place of the old one.
func (pa *parent) with(edit func(*subagent.Options)) {
	if edit != nil {
		edit(&pa.opts)
	}
	pa.tool = newTool(pa.opts)
	pa.reg.Register(pa.tool)
}

func newTool(o subagent.Options) *Tool { return New(subagent.New(o)) }

func toolResults(h []llm.Message) []llm.Block {
	var out []llm.Block
	for _, m := range h {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				out = append(out, b)
			}
		}
	}
	return out
}

func TestChildReadsFileAndAnswers(t *testing.T) {
	root := project(t)
	sc, err := scenario.Parse([]byte(`{"turns": [
	  {"text": "Delegating.", "tool_calls": [{"name": "agent", "input": {"description": "read greeting", "prompt": "Read greeting.txt and tell me what it says.", "subagent_type": "explore"}}]},
	  {"text": "Reading it.", "tool_calls": [{"name": "read_file", "input": {"file_path": "greeting.txt"}}]},
	  {"text": "greeting.txt says: hello from the greeting file."},
	  {"text": "The file greets you."}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	prov := mock.New(sc)
	pa := newParent(t, prov, root, permission.ModeDefault)
	res := pa.agent.Run(context.Background(), "What does greeting.txt say? Use a sub-agent.")
	if res.StopReason != agent.StopCompleted || res.Text != "The file greets you." {
		t.Fatalf("parent turn: %+v", res)
	}
	if prov.Remaining() != 0 {
		t.Fatalf("%d scenario turns unserved", prov.Remaining())
	}
	hist := pa.agent.History()
	if err := agenttest.CheckPairing(hist); err != nil {
		t.Fatal(err)
	}
	results := toolResults(hist)
	if len(results) != 1 {
		t.Fatalf("the parent's history must hold only the agent call's result, got %d results", len(results))
	}
	got := results[0].Content
	for _, want := range []string{"greeting.txt says: hello from the greeting file.", "[sub-agent explore: completed, 2 round trips, 1 tool calls"} {
		if !strings.Contains(got, want) {
			t.Errorf("agent result lacks %q:\n%s", want, got)
		}
	}
	if results[0].IsError {
		t.Errorf("agent result marked as error: %s", got)
	}
	// The child's own history went to the session as one record.
	if len(pa.rec.records) != 1 {
		t.Fatalf("want one subagent record, got %d", len(pa.rec.records))
	}
	r := pa.rec.records[0]
	if r.Type != subagent.TypeExplore || r.StopReason != "completed" || r.ToolCalls != 1 {
		t.Errorf("record = %+v", r)
	}
	childResults := toolResults(r.Messages)
	if len(childResults) != 1 || !strings.Contains(childResults[0].Content, "hello from the greeting file") {
		t.Errorf("the child should have read the file: %+v", childResults)
	}
	if r.Usage.Total() == 0 || pa.added != r.Usage {
		t.Errorf("child usage %+v, added to parent %+v", r.Usage, pa.added)
	}
	if !strings.Contains(got, "tokens") {
		t.Errorf("usage line missing: %s", got)
	}
	// The user saw the child's tool call as a notice.
	if n := pa.ev.notices(); !slices.ContainsFunc(n, func(s string) bool {
		return strings.Contains(s, "agent(explore) read greeting") && strings.Contains(s, "read_file")
	}) {
		t.Errorf("notices = %q", n)
	}
	// The child's config: fresh receipts, shared root, parent's mode, own turn limit.
	c := pa.made[0]
	if c.Env.Reads == pa.cfg.Env.Reads || c.Env.Root != root || c.Recorder != nil || c.Context != nil {
		t.Errorf("child env/recorder not isolated: %+v", c)
	}
	if c.MaxTurns != subagent.DefaultMaxTurns || c.Mode != permission.ModePlan {
		t.Errorf("child MaxTurns %d mode %s", c.MaxTurns, c.Mode)
	}
	if _, ok := pa.cfg.Env.Reads.Get(filepath.Join(root, "greeting.txt")); ok {
		t.Error("the child's read must not count as the parent's read")
	}
}

func TestChildToolSets(t *testing.T) {
	mcpTool := &agenttest.Tool{ToolName: "mcp__srv__do"}
	tests := []struct {
		typ      string
		visible  []string
		deferred []string
	}{
		{subagent.TypeGeneral, []string{"read_file", "write_file", "edit_file", "list_files", "grep_search", "run_shell", "web_fetch", "todo_write", "tool_search", "mcp__srv__do"}, nil},
		{subagent.TypeExplore, []string{"read_file", "list_files", "grep_search", "run_shell", "web_fetch", "tool_search"}, nil},
		{subagent.TypePlan, []string{"read_file", "list_files", "grep_search", "run_shell", "web_fetch", "tool_search"}, nil},
		{subagent.TypeVerify, []string{"read_file", "list_files", "grep_search", "run_shell", "web_fetch", "tool_search"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			prov := agenttest.NewProvider(agenttest.Step{Text: "done\n## Critical files\n- a.go\nVERDICT: PASS"})
			ps := plantool.NewTools(plantool.Options{Mode: func() permission.Mode { return permission.ModeDefault }, SetMode: func(permission.Mode) {}, PlansDir: t.TempDir()})
			pa := newParent(t, prov, project(t), permission.ModeDefault, append(ps.Tools(), mcpTool)...)
			pa.cfg.Tools.Activate(plantool.EnterName) // even a loaded plan tool stays out of the child
			in, _ := json.Marshal(map[string]string{"description": "x", "prompt": "look around", "subagent_type": tc.typ})
			res, err := pa.tool.Run(context.Background(), pa.cfg.Env, in)
			if err != nil || res.IsError {
				t.Fatalf("run: %v %+v", err, res)
			}
			reqs := prov.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			var names []string
			for _, s := range reqs[0].Tools {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tc.visible) {
				t.Errorf("child sees %v, want %v", names, tc.visible)
			}
			if d := pa.made[0].Tools.Deferred(); len(d) != len(tc.deferred) {
				t.Errorf("child has deferred tools %v", d)
			}
			sys := reqs[0].System
			if len(sys) != 2 || sys[0].Text != "You are hew." || !strings.Contains(sys[1].Text, "type "+tc.typ) {
				t.Errorf("child system prompt = %+v", sys)
			}
			if got := reqs[0].Messages[0].Text(); got != "look around" {
				t.Errorf("child's first message = %q", got)
			}
		})
	}
}

// explorer and mainOnly are tools hew has never heard of that declare
// tools.Explorer and tools.MainAgentOnly.
type explorer struct{ agenttest.Tool }

func (*explorer) Explores() bool { return true }

type mainOnly struct{ agenttest.Tool }

func (*mainOnly) MainAgentOnly() bool { return true }

// Which tools a child gets follows what the tools declare, not their
// names: a new explorer joins the read-only roles' tools, a new main-only
// tool stays with the main agent, and a plain new tool goes to a general
// agent only. In the explore child a call of a tool it was not given is
// refused, naming the tools it has.
func TestChildToolsFollowDeclaredProperties(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		want []string
	}{
		{subagent.TypeExplore, []string{"read_file", "list_files", "grep_search", "run_shell", "web_fetch", "tool_search", "probe"}},
		{subagent.TypeGeneral, []string{"read_file", "write_file", "edit_file", "list_files", "grep_search", "run_shell", "web_fetch", "todo_write", "tool_search", "probe", "plain"}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			prov := agenttest.NewProvider(
				agenttest.Step{Calls: []llm.Block{{Type: llm.BlockToolUse, ID: "c1", Name: "plain", Input: json.RawMessage(`{}`)}}},
				agenttest.Step{Text: "done"})
			extra := []tools.Tool{
				&explorer{agenttest.Tool{ToolName: "probe", RO: true}},
				&mainOnly{agenttest.Tool{ToolName: "boss"}},
				&agenttest.Tool{ToolName: "plain", RO: true},
			}
			pa := newParent(t, prov, project(t), permission.ModeBypass, extra...)
			in, _ := json.Marshal(map[string]string{"description": "x", "prompt": "look around", "subagent_type": tc.typ})
			if _, err := pa.tool.Run(context.Background(), pa.cfg.Env, in); err != nil {
				t.Fatal(err)
			}
			reqs := prov.Requests()
			var names []string
			for _, s := range reqs[0].Tools {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("child sees %v, want %v", names, tc.want)
			}
			res := toolResults(reqs[1].Messages)
			refused := len(res) == 1 && res[0].IsError && strings.Contains(res[0].Content, "read_file, list_files, grep_search, run_shell, web_fetch, tool_search, probe")
			if refused != (tc.typ == subagent.TypeExplore) {
				t.Errorf("the call of plain: %+v", res)
			}
		})
	}
}

func TestCheckAndReadOnly(t *testing.T) {
	tl := newTool(subagent.Options{Base: func() agent.Config { return agent.Config{} }, Registry: tools.NewRegistry()})
	tests := []struct {
		input    string
		readOnly bool
		err      string
	}{
		{`{"description":"d","prompt":"p"}`, false, ""},
		{`{"description":"d","prompt":"p","subagent_type":"general"}`, false, ""},
		{`{"description":"d","prompt":"p","subagent_type":"explore"}`, true, ""},
		{`{"description":"d","prompt":"p","subagent_type":"plan"}`, true, ""},
		{`{"description":"d","prompt":"p","subagent_type":"reviewer"}`, false, `unknown subagent_type "reviewer"; valid types: explore, general, plan, verify`},
		{`{"description":"d","prompt":"  "}`, false, "prompt is empty"},
	}
	for _, tc := range tests {
		in := json.RawMessage(tc.input)
		if got := tl.ReadOnly(in); got != tc.readOnly {
			t.Errorf("ReadOnly(%s) = %v", tc.input, got)
		}
		err := tl.Check(nil, in)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Check(%s) = %v, want %q", tc.input, err, tc.err)
		}
	}
	reg := tools.NewRegistry()
	reg.Register(tl)
	if err := reg.Validate(Name, json.RawMessage(`{"prompt":"p"}`)); err == nil {
		t.Error("schema must require description")
	}
	unwired := newTool(subagent.Options{})
	if err := unwired.Check(nil, json.RawMessage(`{"description":"d","prompt":"p"}`)); err == nil {
		t.Error("an unwired tool must refuse to run")
	}
}

func TestChildKeepsParentPlanMode(t *testing.T) {
	root := project(t)
	prov := agenttest.NewProvider(
		agenttest.Step{Calls: []llm.Block{agenttest.Call("w1", "write_file", `{"file_path":"new.txt","content":"x"}`)}},
		agenttest.Step{Text: "I could not write new.txt."},
	)
	pa := newParent(t, prov, root, permission.ModePlan)
	res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"write","prompt":"create new.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Fatal("a child of a plan-mode parent wrote a file")
	}
	if !strings.Contains(res.Content, "1 calls denied") || !strings.Contains(res.Content, "I could not write new.txt.") {
		t.Errorf("result = %s", res.Content)
	}
	if d := pa.rec.records[0].Denials; len(d) != 1 || !strings.Contains(d[0].Reason, "plan mode") {
		t.Errorf("denials = %+v", d)
	}
	if pa.made[0].Mode != permission.ModePlan {
		t.Errorf("child mode = %s", pa.made[0].Mode)
	}
}

func TestCancelParentCancelsChild(t *testing.T) {
	started := make(chan struct{})
	prov := agenttest.NewProvider(agenttest.Step{Text: "never", Before: func(ctx context.Context) {
		close(started)
		<-ctx.Done()
	}})
	pa := newParent(t, prov, project(t), permission.ModeDefault)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := pa.tool.Run(ctx, pa.cfg.Env, json.RawMessage(`{"description":"d","prompt":"wait"}`))
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled child must report the cancellation")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the child kept running after the parent was cancelled")
	}
	if r := pa.rec.records; len(r) != 1 || r[0].StopReason != string(agent.StopAborted) {
		t.Errorf("records = %+v", r)
	}
}

func TestChildLimits(t *testing.T) {
	loop := agenttest.Step{Text: "still looking", Calls: []llm.Block{agenttest.Call("", "list_files", `{}`)}}
	t.Run("max turns", func(t *testing.T) {
		l1, l2 := loop, loop
		l1.Calls = []llm.Block{agenttest.Call("a", "list_files", `{}`)}
		l2.Calls = []llm.Block{agenttest.Call("b", "list_files", `{}`)}
		prov := agenttest.NewProvider(l1, l2)
		pa := newParent(t, prov, project(t), permission.ModeDefault)
		pa.with(func(o *subagent.Options) { o.MaxTurns = 2 })
		res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"d","prompt":"p","subagent_type":"explore"}`))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"limit of 2 round trips", "still looking", "max_turns"} {
			if !strings.Contains(res.Content, want) {
				t.Errorf("result lacks %q: %s", want, res.Content)
			}
		}
	})
	t.Run("budget left to the child", func(t *testing.T) {
		prov := agenttest.NewProvider(agenttest.Step{Text: "ok"})
		pa := newParent(t, prov, project(t), permission.ModeDefault)
		pa.cfg.MaxBudgetTokens = 1000
		pa.with(func(o *subagent.Options) {
			o.Used = func() (llm.Usage, float64) { return llm.Usage{InputTokens: 400}, 0.5 }
		})
		pa.cfg.MaxCostUSD = 2
		if _, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"d","prompt":"p"}`)); err != nil {
			t.Fatal(err)
		}
		if c := pa.made[0]; c.MaxBudgetTokens != 600 || c.MaxCostUSD != 1.5 {
			t.Errorf("child limits %d tokens $%v, want 600 and $1.5", c.MaxBudgetTokens, c.MaxCostUSD)
		}
	})
	t.Run("budget used up", func(t *testing.T) {
		prov := agenttest.NewProvider(agenttest.Step{Text: "ok"})
		pa := newParent(t, prov, project(t), permission.ModeDefault)
		pa.cfg.MaxBudgetTokens = 100
		pa.with(func(o *subagent.Options) {
			o.Used = func() (llm.Usage, float64) { return llm.Usage{InputTokens: 100}, 0 }
		})
		res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"d","prompt":"p"}`))
		if err != nil || !res.IsError || !strings.Contains(res.Content, "used up") {
			t.Fatalf("res %+v err %v", res, err)
		}
		if len(prov.Requests()) != 0 {
			t.Error("no request may be sent once the budget is spent")
		}
	})
	t.Run("provider error", func(t *testing.T) {
		prov := agenttest.NewProvider(agenttest.Step{Err: &llm.APIError{Status: 400, Message: "bad request"}})
		pa := newParent(t, prov, project(t), permission.ModeDefault)
		res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"d","prompt":"p"}`))
		if err != nil || !res.IsError || !strings.Contains(res.Content, "The sub-agent failed") {
			t.Fatalf("res %+v err %v", res, err)
		}
	})
}

func TestParallelExploreAgents(t *testing.T) {
	const n = 4
	steps := make([]agenttest.Step, n)
	for i := range steps {
		steps[i] = agenttest.Step{Text: "found it"}
	}
	pa := newParent(t, agenttest.NewProvider(steps...), project(t), permission.ModeDefault)
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"d","prompt":"p","subagent_type":"explore"}`))
			if err != nil || !strings.Contains(res.Content, "found it") {
				errs <- res.Content
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if len(pa.rec.records) != n {
		t.Errorf("%d records", len(pa.rec.records))
	}
}

type approver struct {
	mu   sync.Mutex
	asks []agent.ApprovalRequest
}

func (a *approver) Approve(_ context.Context, req agent.ApprovalRequest) (agent.Approval, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asks = append(a.asks, req)
	return agent.ApproveOnce, ""
}

func TestChildAsksTheParentsApprover(t *testing.T) {
	root := project(t)
	prov := agenttest.NewProvider(
		agenttest.Step{Calls: []llm.Block{agenttest.Call("w1", "write_file", `{"file_path":"new.txt","content":"from the child"}`)}},
		agenttest.Step{Text: "Wrote new.txt."},
	)
	pa := newParent(t, prov, root, permission.ModeDefault)
	ap := &approver{}
	pa.cfg.Approver = ap
	res, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"make file","prompt":"create new.txt"}`))
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if b, err := os.ReadFile(filepath.Join(root, "new.txt")); err != nil || string(b) != "from the child" {
		t.Fatalf("new.txt = %q %v", b, err)
	}
	if len(ap.asks) != 1 || ap.asks[0].Tool != "write_file" || !strings.HasPrefix(ap.asks[0].Reason, "agent(general) make file: ") {
		t.Fatalf("asks = %+v", ap.asks)
	}
}

func TestBudgetCountsEarlierChildren(t *testing.T) {
	u := llm.Usage{InputTokens: 300, OutputTokens: 50}
	prov := agenttest.NewProvider(agenttest.Step{Text: "one", Usage: u}, agenttest.Step{Text: "two", Usage: u})
	pa := newParent(t, prov, project(t), permission.ModeDefault)
	pa.with(func(o *subagent.Options) { o.AddUsage = nil })
	pa.cfg.MaxBudgetTokens = 1000
	for i := 0; i < 2; i++ {
		if _, err := pa.tool.Run(context.Background(), pa.cfg.Env, json.RawMessage(`{"description":"d","prompt":"p"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if got := []int{pa.made[0].MaxBudgetTokens, pa.made[1].MaxBudgetTokens}; got[0] != 1000 || got[1] != 650 {
		t.Fatalf("child budgets %v, want [1000 650]", got)
	}
	total, _ := pa.tool.Runner().Usage()
	if total.Total() != 700 {
		t.Fatalf("sub-agent usage %+v", total)
	}
}
