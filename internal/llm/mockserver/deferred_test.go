package mockserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm/anthropic"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

// post sends one raw Messages API request and returns the status and the
// error message of the body (empty on success).
func postMessages(t *testing.T, url, body string, beta bool) (int, string) {
	t.Helper()
	hr, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", bytes.NewReader([]byte(body)))
	hr.Header.Set("Content-Type", "application/json")
	if beta {
		hr.Header.Set("anthropic-beta", "other-beta, "+anthropic.ToolSearchBeta)
	}
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode == 200 {
		return 200, ""
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &e); err != nil || e.Type != "error" || e.Error.Type != "invalid_request_error" {
		t.Fatalf("error body not in the API's shape: %s", data)
	}
	return res.StatusCode, e.Error.Message
}

const (
	toolRead  = `{"name":"read_file","description":"Reads.","input_schema":{"type":"object"}}`
	toolFetch = `{"name":"web_fetch","description":"Fetches.","input_schema":{"type":"object"},"defer_loading":true}`
)

// searched is a conversation whose tool_search result references name.
func searched(tools, name string) string {
	return `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":false,"tools":[` + tools + `],"messages":[
	{"role":"user","content":"go"},
	{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"tool_search","input":{"query":"select:` + name + `"}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"Loaded."},{"type":"tool_reference","tool_name":"` + name + `"}]}]}]}`
}

// The mock server applies the API's tool-search rules on the Anthropic
// wire: accepted with the beta and a valid reference; refused (400, the
// API's error shape) without the beta, with every tool deferred, or with
// a reference to a tool not sent deferred.
func TestMockServerDeferredRules(t *testing.T) {
	srv, err := Start(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cases := []struct {
		name, body string
		beta       bool
		want       string // "" = accepted
	}{
		{"valid", searched(toolRead+","+toolFetch, "web_fetch"), true, ""},
		{"no beta header", searched(toolRead+","+toolFetch, "web_fetch"), false, "defer_loading"},
		{"every tool deferred", searched(toolFetch, "web_fetch"), true, "at least one tool"},
		{"reference to an unknown tool", searched(toolRead+","+toolFetch, "nope"), true, `"nope"`},
		{"reference to a tool sent in full", searched(toolRead+","+toolFetch, "read_file"), true, `"read_file"`},
		{"reference without deferred tools", searched(toolRead, "read_file"), false, "tool_reference"},
	}
	for _, tc := range cases {
		status, msg := postMessages(t, srv.URL(), tc.body, tc.beta)
		switch {
		case tc.want == "" && status != 200:
			t.Errorf("%s: refused (%d %s)", tc.name, status, msg)
		case tc.want != "" && (status != 400 || !strings.Contains(msg, tc.want)):
			t.Errorf("%s: got %d %q, want 400 naming %s", tc.name, status, msg, tc.want)
		}
	}
}

// A scenario that calls a deferred tool before any result referenced it
// is refused: the real model could not have seen that tool.
func TestMockServerRefusesUnloadedDeferredCall(t *testing.T) {
	sc, err := scenario.Parse([]byte(`{"turns":[{"tool_calls":[{"name":"web_fetch","input":{}}]},{"tool_calls":[{"name":"web_fetch","input":{}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(sc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	first := `{"model":"claude-sonnet-4-5","max_tokens":100,"tools":[` + toolRead + `,` + toolFetch + `],"messages":[{"role":"user","content":"go"}]}`
	if status, msg := postMessages(t, srv.URL(), first, true); status != 400 || !strings.Contains(msg, `"web_fetch"`) {
		t.Fatalf("call before loading: %d %q", status, msg)
	}
	if v := srv.Violations(); len(v) != 1 {
		t.Errorf("violations %v, want the unloaded call", v)
	}
	// Once referenced, the same call is served.
	if status, msg := postMessages(t, srv.URL(), searched(toolRead+","+toolFetch, "web_fetch"), true); status != 200 {
		t.Fatalf("call after loading: %d %q", status, msg)
	}
}
