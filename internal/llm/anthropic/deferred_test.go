package anthropic

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
)

func deferredReq() *llm.Request {
	read := llm.ToolSpec{Name: "read_file", Description: "Reads.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	fetch := llm.ToolSpec{Name: "web_fetch", Description: "Fetches.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	plan := llm.ToolSpec{Name: "enter_plan_mode", Description: "Plans.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	return &llm.Request{Model: "claude-sonnet-4-5",
		Tools:         []llm.ToolSpec{read, fetch}, // web_fetch loaded
		DeferredTools: []llm.ToolSpec{plan, fetch},
		Messages: []llm.Message{
			llm.UserText("go"),
			{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "t1", Name: "tool_search", Input: json.RawMessage(`{"query":"select:web_fetch,read_file"}`)}}},
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: "t1", Content: "Loaded web_fetch, read_file.", ToolRefs: []string{"web_fetch", "read_file"}}}},
		}}
}

// The native encoding: tools sent in full first (the cache breakpoint on
// the last of them), then every deferred tool with defer_loading; a
// result's references only to deferred tools, after its text.
func TestEncodeNativeDeferred(t *testing.T) {
	body, _, native, err := encodeRequestCached(deferredReq(), true, encOpts{native: true}, nil)
	if err != nil || !native {
		t.Fatalf("native = %v, err = %v", native, err)
	}
	var w struct {
		Tools    []wireTool `json:"tools"`
		Messages []struct {
			Content []struct {
				Content json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range w.Tools {
		names = append(names, tl.Name)
	}
	if want := []string{"read_file", "enter_plan_mode", "web_fetch"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	if w.Tools[0].DeferLoading || !w.Tools[1].DeferLoading || !w.Tools[2].DeferLoading {
		t.Errorf("defer_loading flags wrong: %+v", w.Tools)
	}
	if w.Tools[0].CacheControl == nil || w.Tools[2].CacheControl != nil {
		t.Errorf("the tools' breakpoint belongs on the last tool sent in full")
	}
	got := string(w.Messages[2].Content[0].Content)
	want := `[{"type":"text","text":"Loaded web_fetch, read_file."},{"type":"tool_reference","tool_name":"web_fetch"}]`
	if got != want {
		t.Errorf("tool_result content\n%s\nwant\n%s", got, want)
	}
	// The mock server reads it back as hew meant it.
	back, _, err := ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Tools) != 1 || len(back.DeferredTools) != 2 || !slices.Equal(back.Messages[2].Content[0].ToolRefs, []string{"web_fetch"}) {
		t.Errorf("parsed back: tools %v deferred %v refs %v", back.Tools, back.DeferredTools, back.Messages[2].Content[0].ToolRefs)
	}
}

// Client-side (or when every tool would be deferred, which the API
// refuses) the request is today's: Tools as given, no flags, no references.
func TestEncodeClientSideDeferred(t *testing.T) {
	allDeferred := deferredReq()
	allDeferred.Tools = allDeferred.Tools[1:] // only web_fetch, itself deferred
	for name, tc := range map[string]struct {
		req  *llm.Request
		opts encOpts
	}{
		"native off":   {deferredReq(), encOpts{}},
		"all deferred": {allDeferred, encOpts{native: true}},
	} {
		body, _, native, err := encodeRequestCached(tc.req, true, tc.opts, nil)
		if err != nil || native {
			t.Fatalf("%s: native = %v, err = %v", name, native, err)
		}
		if b := string(body); strings.Contains(b, "defer_loading") || strings.Contains(b, "tool_reference") || strings.Contains(b, "enter_plan_mode") {
			t.Errorf("%s: client-side body loads natively: %s", name, b)
		}
	}
}

// A message encoded natively is not served from the cache to a
// client-side request (and back): the references differ.
func TestMsgCacheKeepsNativeApart(t *testing.T) {
	c := newMsgCache()
	req := deferredReq()
	nat, _, _, _ := encodeRequestCached(req, true, encOpts{native: true}, c)
	plain, _, _, _ := encodeRequestCached(req, true, encOpts{}, c)
	if strings.Contains(string(plain), "tool_reference") || !strings.Contains(string(nat), "tool_reference") {
		t.Fatal("the cache mixed native and client-side encodings")
	}
	fresh, _ := encodeRequest(req, true, encOpts{})
	if string(fresh) != string(plain) {
		t.Fatal("cached client-side encoding differs from a fresh one")
	}
}

// Native loading is on by default only on Anthropic's own endpoint for
// models that support it; ENABLE_TOOL_SEARCH forces it; a refusal turns it off.
func TestDefersNatively(t *testing.T) {
	cases := []struct {
		base, model string
		ts          ToolSearch
		want        bool
	}{
		{"", "claude-sonnet-4-5", ToolSearchAuto, true},
		{"https://api.anthropic.com", "claude-opus-4-1-20250805", ToolSearchAuto, true},
		{"", "claude-haiku-4-5", ToolSearchAuto, true},
		{"", "claude-3-5-haiku-latest", ToolSearchAuto, false},
		{"", "claude-3-7-sonnet-latest", ToolSearchAuto, false},
		{"http://127.0.0.1:9999", "claude-sonnet-4-5", ToolSearchAuto, false},
		{"https://proxy.example.com", "claude-sonnet-4-5", ToolSearchAuto, false},
		{"http://127.0.0.1:9999", "claude-sonnet-4-5", ToolSearchOn, true},
		{"", "claude-sonnet-4-5", ToolSearchOff, false},
	}
	for _, tc := range cases {
		c := New(Config{BaseURL: tc.base, ToolSearch: tc.ts})
		if got := c.DefersNatively(tc.model); got != tc.want {
			t.Errorf("base %q model %s %q: native = %v, want %v", tc.base, tc.model, tc.ts, got, tc.want)
		}
	}
	c := New(Config{ToolSearch: ToolSearchOn})
	c.nativeRefused.Store(true)
	if c.DefersNatively("claude-sonnet-4-5") {
		t.Error("native after the server refused it")
	}
	if !llm.DefersNatively(llm.Metered{Provider: New(Config{})}, "claude-sonnet-4-5") {
		t.Error("a metered client hides its capability")
	}
}

func TestParseToolSearch(t *testing.T) {
	for in, want := range map[string]ToolSearch{"": ToolSearchAuto, "auto": ToolSearchAuto, "auto:5": ToolSearchAuto,
		"true": ToolSearchOn, "1": ToolSearchOn, "FALSE": ToolSearchOff, "off": ToolSearchOff} {
		if got, err := ParseToolSearch(in); err != nil || got != want {
			t.Errorf("ParseToolSearch(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseToolSearch("sometimes"); err == nil || !strings.Contains(err.Error(), "ENABLE_TOOL_SEARCH") {
		t.Errorf("bad value: err = %v", err)
	}
}

// A tool loaded without a reference in the messages (loaded by another
// tool, or its tool_search result compacted away) would be invisible if
// sent deferred: it goes out in full.
func TestEncodeLoadedWithoutReferenceInFull(t *testing.T) {
	req := deferredReq()
	req.Messages = req.Messages[:1] // the tool_search exchange is gone
	body, _, native, err := encodeRequestCached(req, true, encOpts{native: true}, nil)
	if err != nil || !native {
		t.Fatalf("native = %v, err = %v", native, err)
	}
	var w struct {
		Tools []wireTool `json:"tools"`
	}
	_ = json.Unmarshal(body, &w)
	got := map[string]bool{}
	for _, tl := range w.Tools {
		got[tl.Name] = tl.DeferLoading
	}
	if len(w.Tools) != 3 || got["web_fetch"] || !got["enter_plan_mode"] || got["read_file"] {
		t.Fatalf("tools %+v: want web_fetch in full, enter_plan_mode deferred", w.Tools)
	}
}
