package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/anthropic"
	"github.com/hew-dev/hew/internal/llm/mockserver"
	"github.com/hew-dev/hew/internal/llm/openai"
	"github.com/hew-dev/hew/internal/llm/retry"
	"github.com/hew-dev/hew/internal/llm/scenario"
	"github.com/hew-dev/hew/internal/tools"
)

// lazyTool is a read-only tool that is loaded on demand.
type lazyTool struct {
	agenttest.Tool
	mu    sync.Mutex
	calls int
}

func (*lazyTool) Deferred() bool { return true }

func (d *lazyTool) Run(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
	d.mu.Lock()
	d.calls++
	d.mu.Unlock()
	return tools.Result{Content: "looked it up"}, nil
}

// loadThenCall is a scenario that loads the deferred tool lookup with
// tool_search, calls it, and ends; prefix turns come first (faults).
func loadThenCall(prefix string) string {
	return `{"turns":[` + prefix + `
	{"tool_calls":[{"name":"tool_search","input":{"query":"select:lookup"}}]},
	{"tool_calls":[{"name":"lookup","input":{}}]},
	{"text":"done"}]}`
}

// deferredRun runs one turn of sc through provider make (pointed at a
// real mock server) with read_file, tool_search and the deferred lookup.
func deferredRun(t *testing.T, sc string, make func(url string) llm.Provider) (*mockserver.Server, *lazyTool, []Event) {
	t.Helper()
	s, err := scenario.Parse([]byte(sc))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mockserver.Start(s, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "read_file", RO: true})
	reg.Register(tools.NewToolSearch(reg))
	lookup := &lazyTool{Tool: agenttest.Tool{ToolName: "lookup", RO: true}}
	reg.Register(lookup)
	var mu sync.Mutex
	var evs []Event
	a, err := New(Config{Provider: make(srv.URL()), Model: "claude-sonnet-4-5", Tools: reg,
		Emit: func(e Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() },
		Env:  &tools.Env{Root: t.TempDir(), StateDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if res := a.Run(context.Background(), "look it up"); res.StopReason != StopCompleted {
		t.Fatalf("stop = %s (%v); server log: %v", res.StopReason, res.Err, srv.Violations())
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Fatalf("server saw: %v", v)
	}
	return srv, lookup, evs
}

func anthropicWith(ts anthropic.ToolSearch) func(string) llm.Provider {
	return func(url string) llm.Provider {
		pol := retry.Default()
		pol.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
		return anthropic.New(anthropic.Config{APIKey: "k", BaseURL: url, ToolSearch: ts, Retry: pol})
	}
}

// rawTools is the tools array of a request body, byte for byte.
func rawTools(t *testing.T, body []byte) string {
	t.Helper()
	var w struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	return string(w.Tools)
}

// hasFunctionText reports whether a body holds tool_search's definition
// text (<function>{…}</function>, JSON-escaped or not).
func hasFunctionText(body []byte) bool {
	b := string(body)
	return strings.Contains(b, "<function>") || strings.Contains(b, `\u003cfunction\u003e`)
}

// Issue 12.13: with native loading the deferred tool goes out with
// defer_loading from the first request, tool_search's result references
// it, and the tools array never changes, so the cached prefix survives.
func TestNativeDeferredLoadingKeepsToolList(t *testing.T) {
	srv, lookup, _ := deferredRun(t, loadThenCall(""), anthropicWith(anthropic.ToolSearchOn))
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	first := rawTools(t, reqs[0].Body)
	if !strings.Contains(first, `"name":"lookup"`) || !strings.Contains(first, `"defer_loading":true`) {
		t.Fatalf("first request does not send lookup deferred: %s", first)
	}
	for i, r := range reqs {
		if got := rawTools(t, r.Body); got != first {
			t.Errorf("request %d: tools array changed:\n%s\nwas\n%s", i+1, got, first)
		}
		if got := r.Header.Get("anthropic-beta"); got != anthropic.ToolSearchBeta {
			t.Errorf("request %d: anthropic-beta = %q", i+1, got)
		}
	}
	if !strings.Contains(string(reqs[1].Body), `{"type":"tool_reference","tool_name":"lookup"}`) {
		t.Errorf("tool_search's result carries no tool_reference:\n%s", reqs[1].Body)
	}
	if hasFunctionText(reqs[1].Body) {
		t.Errorf("the result repeats the definition the API expands from the reference")
	}
	if lookup.calls != 1 {
		t.Errorf("lookup ran %d times, want 1", lookup.calls)
	}
}

// Without native loading (the default for a custom base URL) the wire is
// today's: lookup joins the tools array once loaded, no beta header, no
// references; the mock server refuses a call it could not have seen.
func TestClientSideDeferredLoadingAppendsTool(t *testing.T) {
	srv, lookup, _ := deferredRun(t, loadThenCall(""), anthropicWith(anthropic.ToolSearchAuto))
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		body := string(r.Body)
		if strings.Contains(body, "defer_loading") || strings.Contains(body, "tool_reference") || r.Header.Get("anthropic-beta") != "" {
			t.Errorf("request %d uses native loading against a custom base URL", i+1)
		}
	}
	if strings.Contains(rawTools(t, reqs[0].Body), `"lookup"`) || !strings.Contains(rawTools(t, reqs[2].Body), `"name":"lookup"`) {
		t.Errorf("lookup should join the tool list only after tool_search")
	}
	if !hasFunctionText(reqs[1].Body) {
		t.Errorf("client-side tool_search result lacks the definition text")
	}
	if lookup.calls != 1 {
		t.Errorf("lookup ran %d times, want 1", lookup.calls)
	}
}

// A server that refuses native loading costs one resend: the session goes
// on client-side, says so once, and works. A 400 naming defer_loading
// turns it off at once; another 400 does when the client-side resend passes.
func TestNativeRefusalFallsBackOnce(t *testing.T) {
	for name, msg := range map[string]string{
		"named":   "tools.2.custom.defer_loading: Extra inputs are not permitted",
		"unnamed": "tools.2: unexpected field in tool definition",
	} {
		t.Run(name, func(t *testing.T) {
			refusal := `{"error":{"status":400,"type":"invalid_request_error","message":"` + msg + `"}},`
			srv, lookup, evs := deferredRun(t, loadThenCall(refusal), anthropicWith(anthropic.ToolSearchOn))
			reqs := srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 4 (refused, resent, two more)", len(reqs))
			}
			if reqs[0].Status != 400 || !strings.Contains(string(reqs[0].Body), "defer_loading") {
				t.Fatalf("first request: status %d", reqs[0].Status)
			}
			for i, r := range reqs[1:] {
				if strings.Contains(string(r.Body), "defer_loading") || strings.Contains(string(r.Body), "tool_reference") || r.Header.Get("anthropic-beta") != "" {
					t.Errorf("request %d after the refusal still loads natively", i+2)
				}
			}
			if lookup.calls != 1 {
				t.Errorf("lookup ran %d times, want 1", lookup.calls)
			}
			n := 0
			for _, e := range evs {
				if no, ok := e.(Notice); ok && strings.Contains(no.Text, "refused native tool loading") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d notices about the refusal, want 1", n)
			}
		})
	}
}

// A 400 that is not native's doing (the client-side resend fails too)
// leaves native loading on and reports the error; nothing is announced.
func TestUnrelatedBadRequestKeepsNative(t *testing.T) {
	s, err := scenario.Parse([]byte(`{"turns":[{"error":{"status":400,"type":"invalid_request_error","message":"messages.0: image too large","times":2}},{"text":"done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mockserver.Start(s, "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "read_file", RO: true})
	reg.Register(tools.NewToolSearch(reg))
	reg.Register(&lazyTool{Tool: agenttest.Tool{ToolName: "lookup", RO: true}})
	prov := anthropicWith(anthropic.ToolSearchOn)(srv.URL())
	ev := &events{}
	a, err := New(Config{Provider: prov, Model: "claude-sonnet-4-5", Tools: reg, Emit: ev.emit, Env: &tools.Env{Root: t.TempDir(), StateDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	res := a.Run(context.Background(), "go")
	if !strings.Contains(res.Err, "image too large") {
		t.Fatalf("result %s %v, want the server's error", res.StopReason, res.Err)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), "defer_loading") || strings.Contains(string(reqs[1].Body), "defer_loading") {
		t.Fatalf("want one native request and one client-side resend, got %d", len(reqs))
	}
	if !llm.DefersNatively(prov, "claude-sonnet-4-5") {
		t.Error("native loading turned off by an error that was not its doing")
	}
	for _, e := range ev.list() {
		if no, ok := e.(Notice); ok && strings.Contains(no.Text, "native tool loading") {
			t.Errorf("announced: %s", no.Text)
		}
	}
}

// The OpenAI adapter ignores deferred definitions and references: the
// loaded tool joins the list as before.
func TestOpenAIDeferredLoadingUnchanged(t *testing.T) {
	srv, lookup, _ := deferredRun(t, loadThenCall(""), func(url string) llm.Provider {
		return openai.New(openai.Config{APIKey: "k", BaseURL: url + "/v1"})
	})
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if b := string(reqs[0].Body); strings.Contains(b, `"lookup"`) || strings.Contains(b, "defer_loading") {
		t.Errorf("first openai request sends lookup: %s", b)
	}
	if !strings.Contains(string(reqs[2].Body), `"name":"lookup"`) {
		t.Errorf("lookup missing from the tool list after loading")
	}
	if lookup.calls != 1 {
		t.Errorf("lookup ran %d times, want 1", lookup.calls)
	}
}

// A resumed conversation in which tool_search loaded a deferred tool: the
// model saw it loaded, so the first turn after the resume loads it again
// (it is in the tool list) and a call of it runs instead of being refused
// with "load it first".
func TestResumeReloadsDeferredTools(t *testing.T) {
	reg := tools.NewRegistry()
	reg.Register(&agenttest.Tool{ToolName: "read_file", RO: true})
	reg.Register(tools.NewToolSearch(reg))
	lookup := &lazyTool{Tool: agenttest.Tool{ToolName: "lookup", RO: true}}
	reg.Register(lookup)
	prov := agenttest.NewProvider(
		agenttest.Step{Calls: []llm.Block{agenttest.Call("c2", "lookup", `{}`)}},
		agenttest.Step{Text: "done"},
	)
	a, err := New(Config{Provider: prov, Tools: reg, Env: &tools.Env{Root: t.TempDir(), StateDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	a.SetHistory([]llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "find it"}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{agenttest.Call("c1", "tool_search", `{"query":"select:lookup"}`)}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: "c1", Content: "Loaded lookup.", ToolRefs: []string{"lookup"}}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "Loaded."}}},
	})
	if res := a.Run(context.Background(), "now use it"); res.StopReason != StopCompleted || res.Text != "done" {
		t.Fatalf("%+v", res)
	}
	if lookup.calls != 1 {
		t.Fatalf("lookup ran %d times after the resume; results: %v", lookup.calls, a.History()[len(a.History())-2])
	}
	var names []string
	for _, s := range prov.Requests()[0].Tools {
		names = append(names, s.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "lookup") {
		t.Errorf("the first request after the resume lacks the loaded tool: %v", names)
	}
}
