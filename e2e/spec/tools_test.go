package spec

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/testenv"
)

// specTools is SPEC section 4's required input fields; the optional ones
// (marked ? there) must exist as properties but not be required.
var specTools = map[string]struct{ required, optional []string }{
	"read_file":   {[]string{"file_path"}, []string{"offset", "limit"}},
	"write_file":  {[]string{"file_path", "content"}, nil},
	"edit_file":   {[]string{"file_path", "old_string", "new_string"}, []string{"replace_all"}},
	"list_files":  {nil, []string{"pattern", "path"}},
	"grep_search": {[]string{"pattern"}, []string{"path", "glob", "output_mode"}},
	"run_shell":   {[]string{"command"}, []string{"timeout", "description"}},
	"web_fetch":   {[]string{"url"}, nil},
	"todo_write":  {[]string{"todos"}, nil},
	"tool_search": {[]string{"query"}, nil},
	"skill":       {[]string{"name"}, []string{"arguments"}},
	"agent":       {[]string{"description", "prompt"}, []string{"subagent_type"}},
}

// toolSchemas extracts name → input schema from a recorded request body
// of either wire protocol.
func toolSchemas(t *testing.T, body map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	list, _ := body["tools"].([]any)
	for _, v := range list {
		m, _ := v.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok { // OpenAI
			s, _ := fn["parameters"].(map[string]any)
			out[fn["name"].(string)] = s
			continue
		}
		s, _ := m["input_schema"].(map[string]any) // Anthropic
		out[m["name"].(string)] = s
	}
	return out
}

func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// SPEC section 4: the tool names and the input fields each accepts, as
// sent to both wire protocols, and the init event's tools list.
func TestToolSchemas(t *testing.T) {
	for _, via := range []string{"anthropic", "openai"} {
		t.Run(via, func(t *testing.T) {
			w := newWorld(t)
			w.write(".hew/skills/hello/SKILL.md", "---\nname: hello\ndescription: greet\n---\nSay hello.\n")
			ms := w.startMock("")
			env := ms.anthropicEnv()
			if via == "openai" {
				env = ms.openaiEnv()
			}
			r := w.hewEnv(env, "-p", "--output-format", "stream-json", "hi")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			reqs := ms.requests()
			if len(reqs) == 0 {
				t.Fatal("no request recorded")
			}
			schemas := toolSchemas(t, reqs[0].body)
			initTools := toolNames(ofType(events(t, r), "init")[0])
			for name, want := range specTools {
				s, ok := schemas[name]
				if !ok {
					t.Errorf("tool %s not sent to the model (sent: %v)", name, keys(schemas))
					continue
				}
				if !contains(initTools, name) {
					t.Errorf("tool %s missing from init's tools %v", name, initTools)
				}
				if s["type"] != "object" {
					t.Errorf("%s: schema type %v, want object", name, s["type"])
				}
				props, _ := s["properties"].(map[string]any)
				req := append([]string(nil), want.required...)
				sort.Strings(req)
				if got := strs(s["required"]); strings.Join(got, ",") != strings.Join(req, ",") {
					t.Errorf("%s: required %v, want %v", name, got, req)
				}
				for _, f := range append(append([]string(nil), want.required...), want.optional...) {
					if _, ok := props[f]; !ok {
						t.Errorf("%s: no property %q", name, f)
					}
				}
			}
			// todo_write items: {content, status: pending|in_progress|completed}.
			items, _ := schemas["todo_write"]["properties"].(map[string]any)["todos"].(map[string]any)["items"].(map[string]any)
			if got := strs(items["required"]); strings.Join(got, ",") != "content,status" {
				t.Errorf("todo_write items required %v", got)
			}
			status, _ := items["properties"].(map[string]any)["status"].(map[string]any)
			if got := strs(status["enum"]); strings.Join(got, ",") != "completed,in_progress,pending" {
				t.Errorf("todo_write status enum %v", got)
			}
			// Deferred or loop-only tools are not sent up front.
			for _, hidden := range []string{"enter_plan_mode", "exit_plan_mode", "schedule_wakeup"} {
				if _, ok := schemas[hidden]; ok {
					t.Errorf("%s is sent before tool_search loaded it", hidden)
				}
			}
			// The list is deterministic: a later run's requests send the
			// same tool bytes (issue 3: byte for byte across requests).
			w.write("g.txt", "g\n")
			r = w.hewEnv(env, "-p", "--output-format", "json", "read g.txt")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			first, _ := json.Marshal(reqs[0].body["tools"])
			all := ms.requests()
			if len(all) < 3 {
				t.Fatalf("want at least 3 requests, got %d", len(all))
			}
			for _, q := range all[1:] {
				if q.body["tools"] == nil {
					continue // a side request
				}
				if b, _ := json.Marshal(q.body["tools"]); string(b) != string(first) {
					t.Errorf("tool definitions changed between requests")
				}
			}
		})
	}
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Input is validated before anything runs; the error names the field and
// goes back to the model as a tool result, the loop continues.
func TestToolInputValidation(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct{ call, field string }{
		{`{"name":"read_file","input":{}}`, "file_path"},
		{`{"name":"write_file","input":{"file_path":"x.txt"}}`, "content"},
		{`{"name":"edit_file","input":{"file_path":"x.txt","old_string":"a"}}`, "new_string"},
		{`{"name":"grep_search","input":{"path":"."}}`, "pattern"},
		{`{"name":"run_shell","input":{"timeout":5}}`, "command"},
		{`{"name":"web_fetch","input":{}}`, "url"},
		{`{"name":"todo_write","input":{"todos":[{"content":"a","status":"doing"}]}}`, "status"},
		{`{"name":"read_file","input":{"file_path":"a","bogus_field":1}}`, "bogus_field"},
	} {
		sc := `{"turns":[{"text":"t","tool_calls":[` + c.call + `]},{"text":"end"}]}`
		r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.call, r.code, r)
		}
		tr := ofType(events(t, r), "tool_result")
		if len(tr) != 1 || tr[0]["is_error"] != true || !strings.Contains(tr[0].str("content"), c.field) {
			t.Errorf("%s: want an error result naming %q, got %v", c.call, c.field, tr)
		}
		if lastResult(t, r).str("result") != "end" {
			t.Errorf("%s: the loop did not continue after the invalid call", c.call)
		}
	}
	if _, err := readFileErr(w, "x.txt"); err == nil {
		t.Fatal("an invalid call wrote a file")
	}
}

// Issue 3 behaviours a user notices: overwriting needs a prior read; an
// edit of a file changed since it was read is refused; the runaway guard
// stops three identical calls with identical results (stop_reason error,
// exit non-zero).
func TestToolGuards(t *testing.T) {
	w := newWorld(t)
	w.write("w.txt", "original\n")
	sc := `{"turns":[{"text":"a","tool_calls":[{"name":"write_file","input":{"file_path":"w.txt","content":"clobbered"}}]},{"text":"end"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	if tr := ofType(events(t, r), "tool_result"); len(tr) != 1 || tr[0]["is_error"] != true || w.read("w.txt") != "original\n" {
		t.Errorf("write_file overwrote an unread file\n%s", r)
	}
	w.write("e.txt", "alpha\n")
	sc = `{"turns":[
	 {"text":"a","tool_calls":[{"name":"read_file","input":{"file_path":"e.txt"}}]},
	 {"text":"b","tool_calls":[{"name":"run_shell","input":{"command":"echo gamma >> e.txt"}}]},
	 {"text":"c","tool_calls":[{"name":"edit_file","input":{"file_path":"e.txt","old_string":"alpha","new_string":"beta"}}]},
	 {"text":"end"}]}`
	r = w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	tr := ofType(events(t, r), "tool_result")
	if len(tr) != 3 || tr[2]["is_error"] != true || w.read("e.txt") != "alpha\ngamma\n" {
		t.Errorf("edit of a file changed since it was read was not refused\n%s", r)
	}
	sc = `{"turns":[` + strings.Repeat(`{"text":"again","tool_calls":[{"name":"read_file","input":{"file_path":"w.txt"}}]},`, 5) + `{"text":"end"}]}`
	r = w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "json", "go")
	res := jsonResult(t, r)
	if res.str("stop_reason") != "error" || r.code == 0 {
		t.Errorf("runaway guard: stop_reason %q exit %d, want error and non-zero\n%s", res.str("stop_reason"), r.code, r)
	}
	if n, _ := res["num_turns"].(float64); n > 4 {
		t.Errorf("runaway guard let %v round trips through", n)
	}
}

// skill, todo_write and web_fetch (loopback, HTML → Markdown) in one run;
// a domain:HOST allow rule lets the fetch through headless.
func TestSkillTodoWebFetch(t *testing.T) {
	w := newWorld(t)
	w.write(".hew/skills/greet/SKILL.md", "---\nname: greet\ndescription: greet someone\n---\nSay hello to $ARGUMENTS warmly.\n")
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html")
		_, _ = rw.Write([]byte("<html><body><h1>Spec Title</h1><p>Some <b>bold</b> text</p></body></html>"))
	}))
	defer srv.Close()
	sc := `{"turns":[{"text":"t","tool_calls":[
	  {"name":"skill","input":{"name":"greet","arguments":"Bob"}},
	  {"name":"todo_write","input":{"todos":[{"content":"write spec","status":"in_progress"},{"content":"ship","status":"pending"}]}},
	  {"name":"web_fetch","input":{"url":"` + srv.URL + `/page"}}]},{"text":"end"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--allowed-tools", "WebFetch(domain:127.0.0.1)", "--output-format", "stream-json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	got := map[string]event{}
	for _, e := range ofType(events(t, r), "tool_result") {
		got[e.str("name")] = e
	}
	if e := got["skill"]; e == nil || e["is_error"] != false || !strings.Contains(e.str("content"), "Say hello to Bob") {
		t.Errorf("skill result: %v", e)
	}
	if e := got["todo_write"]; e == nil || e["is_error"] != false || !strings.Contains(e.str("content"), "write spec") {
		t.Errorf("todo_write result: %v", e)
	}
	if e := got["web_fetch"]; e == nil || e["is_error"] != false || !strings.Contains(e.str("content"), "# Spec Title") || !strings.Contains(e.str("content"), "**bold**") {
		t.Errorf("web_fetch result (want Markdown): %v", e)
	}
}

// SPEC section 4: enter_plan_mode / exit_plan_mode are deferred until
// tool_search loads them (select:NAME); a plan is written under
// $HEW_HOME/plans/.
func TestDeferredPlanTools(t *testing.T) {
	w := newWorld(t)
	for _, name := range []string{"enter_plan_mode", "exit_plan_mode"} {
		sc := `{"turns":[{"text":"t","tool_calls":[{"name":"tool_search","input":{"query":"select:` + name + `"}}]},{"text":"end"}]}`
		r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "stream-json", "go")
		tr := ofType(events(t, r), "tool_result")
		if len(tr) != 1 || tr[0]["is_error"] != false || !strings.Contains(tr[0].str("content"), name) {
			t.Errorf("tool_search select:%s: %v", name, tr)
		}
	}
	sc := `{"turns":[{"text":"t","tool_calls":[{"name":"tool_search","input":{"query":"select:exit_plan_mode"}}]},
	  {"text":"p","tool_calls":[{"name":"exit_plan_mode","input":{"plan":"# Plan\n1. MARK-PLAN-STEP"}}]},{"text":"end"}]}`
	// Headless (issue 18): nobody can approve, so the plan is saved, printed
	// as the result, and the run ends completed in plan mode.
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--plan", "--output-format", "json", "go")
	res := jsonResult(t, r)
	if r.code != 0 || res["stop_reason"] != "completed" || len(res["permission_denials"].([]any)) != 0 || !strings.Contains(res.str("result"), "MARK-PLAN-STEP") {
		t.Fatalf("headless exit_plan_mode should print the plan and complete\n%s", r)
	}
	entries, err := os.ReadDir(filepath.Join(w.home, "plans"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no plan under $HEW_HOME/plans (%v)", err)
	}
	data, _ := os.ReadFile(filepath.Join(w.home, "plans", entries[0].Name()))
	if !strings.Contains(string(data), "MARK-PLAN-STEP") {
		t.Fatalf("plan file lacks the plan: %q", data)
	}
}

// A Read deny rule holds against project-wide searches (SPEC section 4:
// a deny holds in every mode).
func TestReadDenyHoldsForSearch(t *testing.T) {
	w := newWorld(t)
	w.write(".hew/settings.json", `{"permissions":{"deny":["Read(secrets/**)"]}}`)
	w.write("secrets/k.env", "TOPSECRET=1\n")
	w.write("pub.txt", "public TOPSECRET mention\n")
	sc := `{"turns":[{"text":"t","tool_calls":[{"name":"grep_search","input":{"pattern":"TOPSECRET","output_mode":"content"}},
	  {"name":"grep_search","input":{"pattern":"TOPSECRET","output_mode":"files_with_matches"}},
	  {"name":"list_files","input":{"pattern":"**/*"}}]},{"text":"end"}]}`
	for _, mode := range []string{"default", "bypassPermissions"} {
		r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--permission-mode", mode, "--output-format", "stream-json", "go")
		tr := ofType(events(t, r), "tool_result")
		if len(tr) != 3 {
			t.Fatalf("want 3 results\n%s", r)
		}
		for _, e := range tr {
			if strings.Contains(e.str("content"), "k.env") || strings.Contains(e.str("content"), "TOPSECRET=1") {
				t.Errorf("%s in %s revealed a denied file: %q", e.str("name"), mode, e.str("content"))
			}
		}
	}
}

// edit_file falls back over line endings and curly quotes, writes in the
// file's own style, and applying the same edit twice does not double it
// (issue 3 §10).
func TestEditFallbackAndIdempotence(t *testing.T) {
	w := newWorld(t)
	w.write("crlf.txt", "line one\r\nsay \u201chello\u201d\r\nthird\r\n")
	edit := `{"name":"edit_file","input":{"file_path":"crlf.txt","old_string":"say \"hello\"\nthird","new_string":"say \"bye\"\nthird"}}`
	sc := `{"turns":[{"text":"t","tool_calls":[{"name":"read_file","input":{"file_path":"crlf.txt"}}]},
	  {"text":"e","tool_calls":[` + edit + `]},{"text":"e2","tool_calls":[` + edit + `]},{"text":"end"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--accept-edits", "--output-format", "stream-json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	tr := ofType(events(t, r), "tool_result")
	if len(tr) != 3 || tr[1]["is_error"] != false {
		t.Fatalf("the fallback edit failed\n%s", r)
	}
	if got := w.read("crlf.txt"); got != "line one\r\nsay \u201cbye\u201d\r\nthird\r\n" {
		t.Fatalf("file after edits = %q, want CRLF and curly quotes kept, edit applied once", got)
	}
}

// run_shell: stdin is empty (cat cannot hang), a background job does not
// hold the call, the exit code is reported, a timeout kills the command,
// and the working directory is the project root (issue 3 §10).
func TestRunShellBehaviour(t *testing.T) {
	testenv.Tool(t, "bash")
	w := newWorld(t)
	sc := `{"turns":[{"text":"t","tool_calls":[
	  {"name":"run_shell","input":{"command":"cat; echo after-cat"}},
	  {"name":"run_shell","input":{"command":"sleep 5 & echo bg-started"}},
	  {"name":"run_shell","input":{"command":"exit 3"}},
	  {"name":"run_shell","input":{"command":"sleep 20; echo not-killed","timeout":300}},
	  {"name":"run_shell","input":{"command":"pwd"}}]},{"text":"end"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	tr := ofType(events(t, r), "tool_result")
	if len(tr) != 5 {
		t.Fatalf("want 5 results\n%s", r)
	}
	byID := map[string]event{}
	for _, e := range tr {
		byID[e.str("id")] = e
	}
	uses := ofType(events(t, r), "tool_use")
	res := func(i int) event { return byID[uses[i].str("id")] }
	if !strings.Contains(res(0).str("content"), "after-cat") {
		t.Errorf("cat with no stdin: %v", res(0))
	}
	if !strings.Contains(res(1).str("content"), "bg-started") || res(1)["is_error"] != false {
		t.Errorf("background job: %v", res(1))
	}
	if res(2)["is_error"] != true || !strings.Contains(res(2).str("content"), "3") {
		t.Errorf("exit 3 not reported: %v", res(2))
	}
	if res(3)["is_error"] != true || strings.Contains(res(3).str("content"), "not-killed") || !strings.Contains(strings.ToLower(res(3).str("content")), "time") {
		t.Errorf("timeout: %v", res(3))
	}
	if !strings.Contains(res(4).str("content"), w.proj) {
		t.Errorf("pwd is not the project root: %v", res(4))
	}
}
