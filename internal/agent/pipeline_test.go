package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// fakeHooks returns fixed outcomes and records payloads.
type fakeHooks struct {
	pre, post func(HookPayload) HookOutcome
	events    []string
}

func (f *fakeHooks) PreToolUse(_ context.Context, p HookPayload) HookOutcome {
	f.events = append(f.events, p.Event+":"+string(p.Input))
	if f.pre == nil {
		return HookOutcome{}
	}
	return f.pre(p)
}

func (f *fakeHooks) PostToolUse(_ context.Context, p HookPayload) HookOutcome {
	f.events = append(f.events, p.Event)
	if f.post == nil {
		return HookOutcome{}
	}
	return f.post(p)
}

func verdict(d permission.Decision, reason, source string) func(permission.Request) permission.Verdict {
	return func(permission.Request) permission.Verdict {
		return permission.Verdict{Decision: d, Reason: reason, Source: source}
	}
}

// TestPipeline drives single calls through the Executor (the same pipeline
// the loop uses) and checks what the model would get back.
func TestPipeline(t *testing.T) {
	var ran atomic.Int32
	strict := &agenttest.Tool{ToolName: "strict", InputSchema: `{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"}},"required":["path"]}`,
		CheckFn: func(in json.RawMessage) error {
			if strings.Contains(string(in), "..") {
				return errors.New("path escapes the project root")
			}
			return nil
		},
		Fn: func(_ context.Context, in json.RawMessage) (tools.Result, error) {
			ran.Add(1)
			return tools.Result{Content: "ran with " + string(in)}, nil
		}}
	panicky := &agenttest.Tool{ToolName: "panicky", Fn: func(context.Context, json.RawMessage) (tools.Result, error) { panic("boom") }}
	stuck := &agenttest.Tool{ToolName: "stuck", Fn: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	}}
	failing := &agenttest.Tool{ToolName: "failing", Fn: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{}, errors.New("disk full")
	}}
	allow := verdict(permission.Allow, "rule", "rule:allow")
	type tc struct {
		name     string
		call     llm.Block
		perm     func(permission.Request) permission.Verdict
		hooks    *fakeHooks
		approve  func(ApprovalRequest) (Approval, string)
		side     string // classifier answer
		want     string // substring of the result
		isErr    bool
		denied   bool
		grants   int
		asked    int
		mustRun  bool
		noRunHas bool
	}
	cases := []tc{
		{name: "ok", call: call("1", "strict", `{"path":"a"}`), want: `ran with {"path":"a"}`, mustRun: true},
		{name: "unknown tool", call: call("1", "nope", `{}`), want: `unknown tool "nope"`, isErr: true},
		{name: "missing field", call: call("1", "strict", `{}`), want: "InputValidationError: invalid input for strict: path: required field is missing", isErr: true},
		{name: "wrong type", call: call("1", "strict", `{"path":"a","n":"x"}`), want: "n: must be an integer", isErr: true},
		{name: "not an object", call: call("1", "strict", `[1]`), want: "input must be a JSON object", isErr: true},
		{name: "semantic check", call: call("1", "strict", `{"path":"../x"}`), want: "refused the input: path escapes the project root", isErr: true},
		{name: "deny rule", call: call("1", "strict", `{"path":"a"}`), perm: verdict(permission.Deny, "matches deny rule strict(a)", "rule:deny"),
			want: "Action denied: matches deny rule strict(a)", isErr: true, denied: true},
		{name: "ask approved", call: call("1", "strict", `{"path":"a"}`), perm: verdict(permission.Ask, "edits need approval", "mode"),
			approve: func(ApprovalRequest) (Approval, string) { return ApproveOnce, "" }, want: "ran with", asked: 1, mustRun: true},
		{name: "ask for session", call: call("1", "strict", `{"path":"a"}`), perm: verdict(permission.Ask, "x", "mode"),
			approve: func(ApprovalRequest) (Approval, string) { return ApproveSession, "" }, want: "ran with", asked: 1, grants: 1, mustRun: true},
		{name: "ask declined", call: call("1", "strict", `{"path":"a"}`), perm: verdict(permission.Ask, "x", "mode"),
			approve: func(ApprovalRequest) (Approval, string) { return ApproveDeny, "use the other file" }, want: "Action denied: the user declined: use the other file",
			isErr: true, denied: true, asked: 1},
		{name: "ask headless", call: call("1", "strict", `{"path":"a"}`), perm: verdict(permission.Ask, "shell danger", "danger:rm"),
			want: "Action denied: approval required (shell danger)", isErr: true, denied: true},
		{name: "hook blocks", call: call("1", "strict", `{"path":"a"}`), perm: allow,
			hooks: &fakeHooks{pre: func(HookPayload) HookOutcome { return HookOutcome{Block: true, Reason: "guard.sh: no"} }},
			want:  "Action denied: blocked by hook: guard.sh: no", isErr: true, denied: true},
		{name: "hook rewrites input", call: call("1", "strict", `{"path":"a"}`), perm: allow,
			hooks: &fakeHooks{pre: func(HookPayload) HookOutcome { return HookOutcome{UpdatedInput: json.RawMessage(`{"path":"b"}`)} }},
			want:  `ran with {"path":"b"}`, mustRun: true},
		{name: "hook rewrite invalid", call: call("1", "strict", `{"path":"a"}`), perm: allow,
			hooks: &fakeHooks{pre: func(HookPayload) HookOutcome { return HookOutcome{UpdatedInput: json.RawMessage(`{"n":1}`)} }},
			want:  "rewrote the input and the result is invalid", isErr: true},
		{name: "hook allow cannot beat deny rule", call: call("1", "strict", `{"path":"a"}`), perm: verdict(permission.Deny, "deny rule", "rule"),
			hooks: &fakeHooks{pre: func(HookPayload) HookOutcome { return HookOutcome{Permission: "allow"} }},
			want:  "Action denied: deny rule", isErr: true, denied: true},
		{name: "hook asks", call: call("1", "strict", `{"path":"a"}`), perm: allow,
			hooks:   &fakeHooks{pre: func(HookPayload) HookOutcome { return HookOutcome{Permission: "ask", Reason: "hook wants a human"} }},
			approve: func(ApprovalRequest) (Approval, string) { return ApproveOnce, "" }, want: "ran with", asked: 1, mustRun: true},
		{name: "hook context", call: call("1", "strict", `{"path":"a"}`), perm: allow,
			hooks: &fakeHooks{
				pre:  func(HookPayload) HookOutcome { return HookOutcome{AdditionalContext: "note from pre"} },
				post: func(HookPayload) HookOutcome { return HookOutcome{AdditionalContext: "note from post"} },
			},
			want: "note from post\n\nnote from pre", mustRun: true},
		{name: "hook runner crashes", call: call("1", "strict", `{"path":"a"}`), perm: allow,
			hooks: &fakeHooks{pre: func(HookPayload) HookOutcome { panic("nil map") }},
			want:  "Action denied: PreToolUse hook failed: hook runner crashed: nil map", isErr: true, denied: true},
		{name: "hook stops", call: call("1", "strict", `{"path":"a"}`), perm: allow,
			hooks: &fakeHooks{pre: func(HookPayload) HookOutcome { return HookOutcome{Stop: true, Reason: "freeze"} }},
			want:  "Not run: a PreToolUse hook stopped the turn (freeze)", isErr: true},
		{name: "classifier allows", call: call("1", "strict", `{"path":"a"}`),
			perm: func(permission.Request) permission.Verdict {
				return permission.Verdict{Decision: permission.Ask, Classify: true}
			},
			side: `{"decision":"allow","reason":"part of the task"}`, want: "ran with", mustRun: true},
		{name: "classifier blocks", call: call("1", "strict", `{"path":"a"}`),
			perm: func(permission.Request) permission.Verdict {
				return permission.Verdict{Decision: permission.Ask, Classify: true}
			},
			side: "BLOCK: deletes user data", want: "Action denied: auto-mode classifier: deletes user data", isErr: true, denied: true},
		{name: "classifier unparsable", call: call("1", "strict", `{"path":"a"}`),
			perm: func(permission.Request) permission.Verdict {
				return permission.Verdict{Decision: permission.Ask, Classify: true}
			},
			side: "I think it is probably fine", want: "could not be parsed", isErr: true, denied: true},
		{name: "panic", call: call("1", "panicky", `{}`), want: "tool panicky crashed (boom)", isErr: true},
		{name: "error", call: call("1", "failing", `{}`), want: "Error: disk full", isErr: true},
		{name: "timeout", call: call("1", "stuck", `{}`), want: "stuck timed out after", isErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran.Store(0)
			reg := tools.NewRegistry()
			for _, tl := range []tools.Tool{strict, panicky, stuck, failing} {
				reg.Register(tl)
			}
			ev, rec := &events{}, &recorder{}
			pm := &perms{fn: c.perm}
			cfg := Config{Tools: reg, Emit: ev.emit, Recorder: rec, ToolTimeout: 20 * time.Millisecond, Mode: permission.ModeAuto}
			if c.perm != nil {
				cfg.Permissions = pm
			}
			if c.hooks != nil {
				cfg.Hooks = c.hooks
			}
			ap := &approver{fn: c.approve}
			if c.approve != nil {
				cfg.Approver = ap
			}
			var sideReqs []*llm.Request
			if c.side != "" {
				p := agenttest.NewProvider()
				p.Side = map[llm.Purpose]string{llm.PurposeClassifier: c.side}
				p.OnRequest = func(r *llm.Request) { sideReqs = append(sideReqs, r) }
				cfg.Provider, cfg.Model = p, "mock"
			}
			res := NewExecutor(cfg).Execute(context.Background(), c.call)
			if res.Type != llm.BlockToolResult || res.ID != "1" || !strings.Contains(res.Content, c.want) || res.IsError != c.isErr {
				t.Fatalf("result = %+v\nwant content containing %q, isErr %v", res, c.want, c.isErr)
			}
			if c.mustRun != (ran.Load() == 1) && c.call.Name == "strict" {
				t.Fatalf("ran = %d, want run %v", ran.Load(), c.mustRun)
			}
			if len(ap.asked) != c.asked || len(pm.grants) != c.grants {
				t.Fatalf("asked %d, grants %d", len(ap.asked), len(pm.grants))
			}
			if c.asked > 0 && len(eventsOf[ApprovalRequest](ev)) != 1 {
				t.Fatal("no ApprovalRequest event before asking")
			}
			decided := eventsOf[PermissionDecided](ev)
			if c.denied && (len(decided) != 1 || decided[0].Decision != "deny") {
				t.Fatalf("permission events = %+v", decided)
			}
			if c.side != "" {
				if len(sideReqs) != 1 || sideReqs[0].Purpose != llm.PurposeClassifier || !strings.HasPrefix(sideReqs[0].System[0].Text, llm.PurposeTag(llm.PurposeClassifier)) {
					t.Fatalf("classifier request = %+v", sideReqs)
				}
			}
			rs := rec.receipts()
			if len(rs) != 1 || rs[0].ToolUseID != "1" || rs[0].IsError != c.isErr || rs[0].End.Before(rs[0].Start) {
				t.Fatalf("receipts = %+v", rs)
			}
			if c.denied && rs[0].Decision != "deny" {
				t.Fatalf("receipt decision = %q", rs[0].Decision)
			}
			if fin := eventsOf[ToolFinished](ev); len(fin) != 1 || fin[0].IsError != c.isErr {
				t.Fatalf("ToolFinished events = %+v", fin)
			}
		})
	}
}

func TestPostToolUseFailureHook(t *testing.T) {
	hooks := &fakeHooks{}
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "f", Fn: func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{}, errors.New("bad") }})
	reg.Register(&agenttest.Tool{ToolName: "g"})
	e := NewExecutor(Config{Tools: reg, Hooks: hooks})
	e.Execute(context.Background(), call("1", "f", `{}`))
	e.Execute(context.Background(), call("2", "g", `{"a":1}`))
	want := []string{`PreToolUse:{}`, "PostToolUseFailure", `PreToolUse:{"a":1}`, "PostToolUse"}
	if strings.Join(hooks.events, "|") != strings.Join(want, "|") {
		t.Fatalf("hook events = %v, want %v", hooks.events, want)
	}
}

func TestLargeResultPersistedThenTruncated(t *testing.T) {
	big := strings.Repeat("0123456789abcdef\n", 5000) // 85 KB
	huge := strings.Repeat("x", 120000)
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "big", Fn: func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Content: big}, nil }})
	reg.Register(&agenttest.Tool{ToolName: "huge", Fn: func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Content: huge}, nil }})
	state := t.TempDir()
	rec := &recorder{}
	e := NewExecutor(Config{Tools: reg, Recorder: rec, Env: &tools.Env{StateDir: state}})
	res := e.Execute(context.Background(), call("call_1", "big", `{}`))
	rs := rec.receipts()
	if len(res.Content) > 50000 || rs[0].StoredAt == "" || !strings.Contains(res.Content, rs[0].StoredAt) || rs[0].ResultBytes != len(big) {
		t.Fatalf("big result: %d chars, receipt %+v", len(res.Content), rs[0])
	}
	saved, err := os.ReadFile(rs[0].StoredAt)
	if err != nil || string(saved) != big {
		t.Fatalf("persisted result differs (%v)", err)
	}
	// Without a state directory nothing can be persisted: head and tail stay.
	e = NewExecutor(Config{Tools: reg})
	res = e.Execute(context.Background(), call("2", "huge", `{}`))
	if n := len([]rune(res.Content)); n > 50300 || !strings.Contains(res.Content, "characters cut here") {
		t.Fatalf("huge result not truncated: %d chars", n)
	}
}

func TestReceiptShortensLongInput(t *testing.T) {
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "w"})
	rec := &recorder{}
	content := strings.Repeat("é", 5000)
	in, _ := json.Marshal(map[string]any{"file_path": "a.txt", "content": content})
	NewExecutor(Config{Tools: reg, Recorder: rec}).Execute(context.Background(), call("1", "w", string(in)))
	r := rec.receipts()[0]
	var got map[string]string
	if err := json.Unmarshal(r.Input, &got); err != nil {
		t.Fatal(err)
	}
	if got["file_path"] != "a.txt" || !strings.HasSuffix(got["content"], "…(5000 chars)") || len([]rune(got["content"])) > 230 {
		t.Fatalf("receipt input = %v", got)
	}
	if r.Decision != "allow" || r.DecidedBy != "default" || r.ResultBytes != 2 {
		t.Fatalf("receipt = %+v", r)
	}
}

func TestParseClassifierVerdict(t *testing.T) {
	for _, tc := range []struct {
		in    string
		allow bool
	}{
		{`{"decision":"allow","reason":"reads a test file"}`, true},
		{"```json\n{\"decision\": \"block\", \"reason\": \"rm -rf\"}\n```", false},
		{`{"decision":"allow"}`, false}, // an allow needs a reason
		{"ALLOW: part of the refactor", true},
		{"ALLOW", false},
		{"BLOCK - touches ~/.ssh", false},
		{"sure, go ahead", false},
		{"", false},
		{`{"decision":"maybe","reason":"x"}`, false},
	} {
		if got, reason := parseClassifierVerdict(tc.in); got != tc.allow || reason == "" {
			t.Errorf("%q: allow=%v reason=%q, want allow=%v", tc.in, got, reason, tc.allow)
		}
	}
}

func TestExecutorCancelled(t *testing.T) {
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "g"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := NewExecutor(Config{Tools: reg}).Execute(ctx, call("9", "g", `{}`))
	if !res.IsError || res.ID != "9" || !strings.Contains(res.Content, "interrupted by user") {
		t.Fatalf("result = %+v", res)
	}
}

// previewTool is a fake whose approval shows a fixed diff (tools.Previewer).
type previewTool struct{ *agenttest.Tool }

func (previewTool) Preview(_ *tools.Env, input json.RawMessage) string {
	return "-x := 1\n+x := 2\n"
}

func TestHeadlessApproverAndDiff(t *testing.T) {
	reg := tools.NewRegistry()
	reg.Register(previewTool{&agenttest.Tool{ToolName: "edit_file"}})
	ev := &events{}
	e := NewExecutor(Config{Tools: reg, Approver: Headless{}, Emit: ev.emit,
		Permissions: &perms{fn: verdict(permission.Ask, "edits need approval", "mode:default")}})
	res := e.Execute(context.Background(), call("1", "edit_file", `{"file_path":"a.go","old_string":"x := 1","new_string":"x := 2"}`))
	if !strings.Contains(res.Content, "nobody can answer in this mode") {
		t.Fatalf("result = %+v", res)
	}
	reqs := eventsOf[ApprovalRequest](ev)
	if len(reqs) != 1 || reqs[0].Subject != "a.go" || !strings.Contains(reqs[0].Diff, "-x := 1\n+x := 2") {
		t.Fatalf("approval request = %+v", reqs)
	}
}

// Issue 12.11: an executor's side requests (the auto-mode classifier of a
// served call) are counted like a session's: Usage and UsageUpdated.
func TestExecutorCountsSideRequests(t *testing.T) {
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "w"})
	ev := &events{}
	prov := agenttest.NewProvider()
	prov.Side = map[llm.Purpose]string{llm.PurposeClassifier: `{"decision":"allow","reason":"part of the task"}`}
	sent := 0
	prov.OnRequest = func(*llm.Request) { sent++ }
	e := NewExecutor(Config{Tools: reg, Provider: prov, Model: "claude-sonnet-4-5", Emit: ev.emit,
		Permissions: &perms{fn: func(permission.Request) permission.Verdict {
			return permission.Verdict{Decision: permission.Ask, Classify: true, Reason: "auto mode", Source: "mode:auto"}
		}}})
	for _, id := range []string{"1", "2"} {
		if res := e.Execute(context.Background(), call(id, "w", `{}`)); res.IsError {
			t.Fatalf("classified allow: %+v", res)
		}
	}
	if sent != 2 {
		t.Fatalf("%d classifier requests, want 2", sent)
	}
	one := llm.Usage{InputTokens: 10, OutputTokens: 5} // what agenttest answers side requests with
	got, cost := e.Usage()
	if want := (llm.Usage{InputTokens: 20, OutputTokens: 10}); got != want || cost <= 0 {
		t.Fatalf("usage %+v cost %v, want %+v and a price", got, cost, want)
	}
	var updates []UsageUpdated
	for _, x := range ev.list() {
		if uu, ok := x.(UsageUpdated); ok {
			updates = append(updates, uu)
		}
	}
	if len(updates) != 2 || updates[0].Request != one || updates[1].Total != got {
		t.Fatalf("usage events %+v", updates)
	}
}

// selfTimed is a tool that declares tools.SelfTimed.
type selfTimed struct{ *agenttest.Tool }

func (selfTimed) SelfTimed() bool { return true }

// A tool that bounds its own running time (tools.SelfTimed, as run_shell
// and agent do) is not cut by the per-call timeout, whatever its name;
// the same tool without the declaration is.
func TestSelfTimedToolsSkipTheCallTimeout(t *testing.T) {
	slow := func(name string) *agenttest.Tool {
		return &agenttest.Tool{ToolName: name, Fn: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
			select {
			case <-time.After(300 * time.Millisecond):
				return tools.Result{Content: "finished"}, nil
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
		}}
	}
	for _, tc := range []struct {
		tool tools.Tool
		want string
	}{
		{selfTimed{slow("probe")}, "finished"},
		{slow("probe"), "probe timed out after"},
	} {
		reg := tools.NewRegistry()
		reg.Register(tc.tool)
		res := NewExecutor(Config{Tools: reg, ToolTimeout: 10 * time.Millisecond, Mode: permission.ModeBypass}).Execute(context.Background(), call("1", "probe", `{}`))
		if !strings.Contains(res.Content, tc.want) {
			t.Errorf("%T: result %q, want %q", tc.tool, res.Content, tc.want)
		}
	}
}
