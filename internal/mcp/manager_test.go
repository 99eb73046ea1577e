package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct {
		server, tool, want string
	}{
		{"fs", "read_file", "mcp__fs__read_file"},
		{"my.server", "write.thing/v2", "mcp__my_server__write_thing_v2"},
		{"a b", "é", "mcp__a_b____"},
		{"srv", "get-item", "mcp__srv__get-item"},
	}
	for _, tc := range tests {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	a, b := ToolName("srv", long+"a"), ToolName("srv", long+"b")
	if len(a) != MaxNameLen || len(b) != MaxNameLen || a == b {
		t.Errorf("long names must be cut to %d with distinct hashes: %q %q", MaxNameLen, a, b)
	}
	if a != ToolName("srv", long+"a") {
		t.Errorf("hash suffix must be stable")
	}
	if !strings.HasPrefix(a, "mcp__srv__xxx") {
		t.Errorf("cut name keeps its prefix: %q", a)
	}
}

func TestShapeResult(t *testing.T) {
	size := int64(10)
	tests := []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"text joined", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, "a\nb"},
		{"image noted", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 68)}}}, "[image: image/png, 68 bytes]"},
		{"audio noted", &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 3)}}}, "[audio: audio/wav, 3 bytes]"},
		{"link listed", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///x", Name: "x", MIMEType: "text/plain", Size: &size, Description: "the x"}}}, "[resource link: file:///x (x), text/plain] the x"},
		{"embedded text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://a", Text: "hello"}}}}, "[resource: mem://a]\nhello"},
		{"embedded blob", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://b", MIMEType: "application/zip", Blob: []byte("abcd")}}}}, "[resource: mem://b, application/zip, 4 bytes]"},
		{"structured only", &sdk.CallToolResult{StructuredContent: map[string]any{"sum": 3}}, `{"sum":3}`},
		{"empty", &sdk.CallToolResult{}, "(no output)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShapeResult(tc.res); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestManagerIsLazyAndRegistersTools(t *testing.T) {
	f := newFakeServer(0)
	m := inMemoryManager(t, map[string]*fakeServer{"fake": f}, nil, Options{})
	if st := statusOf(t, m, "fake"); st.State != StatePending {
		t.Fatalf("nothing may start before Register: %+v", st)
	}
	reg := tools.NewRegistry()
	if errs := m.Register(context.Background(), reg, adapt); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := []string{"mcp__fake__echo", "mcp__fake__fail", "mcp__fake__mixed", "mcp__fake__wait", "mcp__fake__write_thing_v2"}
	if got := reg.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("visible tools = %v, want %v", got, want)
	}
	st := statusOf(t, m, "fake")
	if st.State != StateConnected || st.Tools != 5 {
		t.Errorf("status: %+v", st)
	}
	if got := m.Instructions(); got != "## fake\nFake server: call echo first." {
		t.Errorf("instructions = %q", got)
	}
	echo, _ := reg.Get("mcp__fake__echo")
	write, _ := reg.Get("mcp__fake__write_thing_v2")
	if !echo.ReadOnly(nil) || write.ReadOnly(nil) {
		t.Errorf("ReadOnly must follow readOnlyHint")
	}
	if !strings.Contains(string(echo.Schema()), `"message"`) || !strings.Contains(echo.Description(), "Echoes the message") {
		t.Errorf("schema/description lost: %s %q", echo.Schema(), echo.Description())
	}

	res, err := run(t, context.Background(), reg, "mcp__fake__echo", `{"message":"hi there"}`)
	if err != nil || res.Content != "hi there" || res.IsError {
		t.Errorf("echo: %+v %v", res, err)
	}
	res, err = run(t, context.Background(), reg, "mcp__fake__fail", `{}`)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "boom: disk full") {
		t.Errorf("isError must become an error result: %+v %v", res, err)
	}
	res, err = run(t, context.Background(), reg, "mcp__fake__mixed", `{}`)
	want2 := "first\n[image: image/png, 5 bytes]\n[resource link: file:///a.txt (a.txt), text/plain]\n[resource: mem://notes]\nembedded text"
	if err != nil || res.Content != want2 {
		t.Errorf("mixed:\n%q\nwant\n%q (%v)", res.Content, want2, err)
	}
	if errs := m.Register(context.Background(), tools.NewRegistry(), adapt); len(errs) != 0 {
		t.Errorf("a second Register must not report again: %v", errs)
	}
}

func TestSchemasAreDeterministic(t *testing.T) {
	var first []string
	for i := range 3 {
		m := inMemoryManager(t, map[string]*fakeServer{"fake": newFakeServer(3)}, nil, Options{})
		reg := tools.NewRegistry()
		m.Register(context.Background(), reg, adapt)
		var got []string
		for _, s := range reg.Specs() {
			got = append(got, s.Name+string(s.InputSchema)+s.Description)
		}
		if i == 0 {
			first = got
		} else if strings.Join(got, "\n") != strings.Join(first, "\n") {
			t.Fatalf("spec bytes differ between runs:\n%v\n%v", first, got)
		}
	}
}

func TestFilters(t *testing.T) {
	m := inMemoryManager(t, map[string]*fakeServer{"fake": newFakeServer(0)},
		map[string]string{"fake": `{"command":"x","enabledTools":["echo","w*","fail"],"disabledTools":["fail"]}`}, Options{})
	reg := tools.NewRegistry()
	m.Register(context.Background(), reg, adapt)
	if got := strings.Join(reg.Names(), ","); got != "mcp__fake__echo,mcp__fake__wait,mcp__fake__write_thing_v2" {
		t.Errorf("filtered tools = %s", got)
	}
}

func TestDeferralBudget(t *testing.T) {
	tests := []struct {
		name     string
		extra    int
		opts     Options
		deferred bool
	}{
		{"small server visible", 0, Options{}, false},
		{"over 30 tools deferred", 30, Options{}, true},
		{"over token budget deferred", 0, Options{MaxSchemaTokens: 50}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := inMemoryManager(t, map[string]*fakeServer{"fake": newFakeServer(tc.extra)}, nil, tc.opts)
			reg := tools.NewRegistry()
			m.Register(context.Background(), reg, adapt)
			total := 5 + tc.extra
			if tc.deferred {
				if len(reg.Specs()) != 0 || len(reg.Deferred()) != total {
					t.Fatalf("want all %d deferred; visible %d, deferred %d", total, len(reg.Specs()), len(reg.Deferred()))
				}
				if !reg.Activate("mcp__fake__echo") || !reg.Visible("mcp__fake__echo") {
					t.Errorf("deferred tool must be activatable")
				}
			} else if len(reg.Specs()) != total {
				t.Fatalf("want %d visible, got %d", total, len(reg.Specs()))
			}
		})
	}
}

func TestCancelSendsNotificationAndServerStaysUsable(t *testing.T) {
	f := newFakeServer(0)
	m := inMemoryManager(t, map[string]*fakeServer{"fake": f}, nil, Options{})
	reg := tools.NewRegistry()
	m.Register(context.Background(), reg, adapt)
	ctx, cancel := context.WithCancel(context.Background())
	var err error
	within(t, 20*time.Second, "cancelled call", func() {
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		_, err = run(t, ctx, reg, "mcp__fake__wait", `{}`)
	})
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("want a cancelled error, got %v", err)
	}
	select {
	case <-f.cancelled: // the server's handler saw notifications/cancelled
	case <-time.After(20 * time.Second):
		t.Fatal("server never saw the cancellation")
	}
	res, err := run(t, context.Background(), reg, "mcp__fake__echo", `{"message":"still here"}`)
	if err != nil || res.Content != "still here" {
		t.Errorf("server unusable after cancel: %+v %v", res, err)
	}
	if st := statusOf(t, m, "fake"); st.State != StateConnected {
		t.Errorf("a cancel is not a fault: %+v", st)
	}
}

func TestHTTPAndSSEServersWithHeaders(t *testing.T) {
	for _, transport := range []string{"http", "sse"} {
		t.Run(transport, func(t *testing.T) {
			f := newFakeServer(0)
			var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return f.srv }, nil)
			if transport == "sse" {
				h = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return f.srv }, nil)
			}
			var sawAuth atomic.Value
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sawAuth.Store(r.Header.Get("Authorization"))
				h.ServeHTTP(w, r)
			}))
			defer ts.Close()
			src := Source{Scope: ScopeProject, Path: "/p/.mcp.json", Servers: map[string]rawJSON{
				"web": rawJSON(`{"type":"` + transport + `","url":"` + ts.URL + `","headers":{"Authorization":"Bearer ${TOK}"}}`),
			}}
			cfg := LoadConfig(ConfigOptions{Settings: []Source{src}, LookupEnv: envOf(map[string]string{"TOK": "abc"})})
			m := NewManager(cfg, Options{})
			defer m.Close()
			reg := tools.NewRegistry()
			if errs := m.Register(context.Background(), reg, adapt); len(errs) != 0 {
				t.Fatalf("errors: %v", errs)
			}
			res, err := run(t, context.Background(), reg, "mcp__web__echo", `{"message":"over `+transport+`"}`)
			if err != nil || res.Content != "over "+transport {
				t.Fatalf("echo: %+v %v", res, err)
			}
			if got, _ := sawAuth.Load().(string); got != "Bearer abc" {
				t.Errorf("Authorization header = %q", got)
			}
		})
	}
}

func TestCancelledStartStaysPendingAndRetries(t *testing.T) {
	m := inMemoryManager(t, map[string]*fakeServer{"fake": newFakeServer(0)}, nil, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl+C before the servers answered
	reg := tools.NewRegistry()
	errs := m.Register(ctx, reg, adapt)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "cancelled") {
		t.Fatalf("errors: %v", errs)
	}
	if st := statusOf(t, m, "fake"); st.State != StatePending {
		t.Fatalf("a cancelled start must stay pending: %+v", st)
	}
	if errs := m.Register(context.Background(), reg, adapt); len(errs) != 0 {
		t.Fatalf("retry: %v", errs)
	}
	if _, ok := reg.Get("mcp__fake__echo"); !ok {
		t.Errorf("tools missing after the retried start")
	}
}

func TestFailedServerReportedOnceOthersWork(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	src := Source{Scope: ScopeProject, Path: root + "/.mcp.json", Servers: map[string]rawJSON{
		"good":    helperServer(t, "good", nil),
		"missing": rawJSON(`{"command":"/nonexistent/hew-no-such-server"}`),
		"silent":  withTimeout(helperServer(t, "silent", map[string]string{"HEW_MCP_HELPER_SILENT": "1"}), 0.5),
		"bad":     rawJSON(`{"type":"http"}`),
	}}
	cfg := LoadConfig(ConfigOptions{Root: root, Settings: []Source{src}})
	var log syncBuffer
	m := NewManager(cfg, Options{Stderr: &log})
	defer m.Close()
	reg := tools.NewRegistry()
	errs := m.Register(context.Background(), reg, adapt)
	if len(errs) != 3 {
		t.Fatalf("want 3 one-line errors (bad config, missing, silent), got %d: %v", len(errs), errs)
	}
	joined := ""
	for _, e := range errs {
		if strings.Contains(e.Error(), "\n") {
			t.Errorf("error is not one line: %q", e)
		}
		joined += e.Error() + "\n"
	}
	for _, want := range []string{`"bad"`, `"missing" (` + root + `/.mcp.json) failed to start`, `"silent"`, "no answer within 500ms"} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors should mention %q:\n%s", want, joined)
		}
	}
	if _, ok := reg.Get("mcp__good__echo"); !ok {
		t.Fatalf("the good server's tools must be there: %v", names(reg))
	}
	for _, n := range names(reg) {
		if !strings.HasPrefix(n, "mcp__good__") {
			t.Errorf("failed server's tool registered: %s", n)
		}
	}
	if !strings.Contains(log.String(), "[good] helper server ready") {
		t.Errorf("server stderr should reach the log with its name: %q", log.String())
	}
	states := map[string]string{}
	for _, s := range m.Status() {
		states[s.Name] = s.State
	}
	if states["good"] != StateConnected || states["missing"] != StateFailed || states["silent"] != StateFailed || states["bad"] != StateInvalid {
		t.Errorf("states: %v", states)
	}
	if errs := m.Register(context.Background(), reg, adapt); len(errs) != 0 {
		t.Errorf("failures are reported once: %v", errs)
	}
}

func TestCloseEndsCallsInFlight(t *testing.T) {
	m := inMemoryManager(t, map[string]*fakeServer{"fake": newFakeServer(0)}, nil, Options{})
	reg := tools.NewRegistry()
	m.Register(context.Background(), reg, adapt)
	errc := make(chan error, 1)
	go func() {
		_, err := run(t, context.Background(), reg, "mcp__fake__wait", `{}`)
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	within(t, 20*time.Second, "Close with a call in flight", func() { _ = m.Close() })
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("in-flight call: %v", err)
	}
}

func TestToolListChangedAddsNewTools(t *testing.T) {
	f := newFakeServer(0)
	m := inMemoryManager(t, map[string]*fakeServer{"fake": f}, nil, Options{})
	reg := tools.NewRegistry()
	m.Register(context.Background(), reg, adapt)
	before := strings.Join(reg.Names(), ",")
	sdk.AddTool(f.srv, &sdk.Tool{Name: "late", Description: "Added after start"},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late answer"}}}, nil, nil
		})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, ok := reg.Get("mcp__fake__late"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new tool never appeared: %v", names(reg))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after := strings.Join(reg.Names(), ","); !strings.HasPrefix(after, before+",") {
		t.Errorf("earlier tools must keep their order: %s -> %s", before, after)
	}
	if res, err := run(t, context.Background(), reg, "mcp__fake__late", `{}`); err != nil || res.Content != "late answer" {
		t.Errorf("late tool: %+v %v", res, err)
	}
	if st := statusOf(t, m, "fake"); st.Tools != 6 {
		t.Errorf("status tools = %d", st.Tools)
	}
}
