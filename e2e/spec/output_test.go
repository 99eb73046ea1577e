package spec

import (
	"strings"
	"testing"
)

// requireFields fails when e lacks one of the keys.
func requireFields(t *testing.T, e event, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := e[k]; !ok {
			t.Errorf("%s event lacks %q: %v", e.str("type"), k, e)
		}
	}
}

// SPEC section 6: every required field of every event, in a run with a
// tool call, a denial and a final answer.
func TestStreamJSONEvents(t *testing.T) {
	for _, via := range []string{"mock", "anthropic", "openai"} {
		t.Run(via, func(t *testing.T) {
			w := newWorld(t)
			w.write("greeting.txt", "hello\n")
			sc := `{"turns":[
			 {"text":"I'll read it.","tool_calls":[{"name":"read_file","input":{"file_path":"greeting.txt"}},
			   {"name":"write_file","input":{"file_path":"out.txt","content":"x"}}]},
			 {"text":"It says hello."}]}`
			var env []string
			switch via {
			case "mock":
				env = append(w.mockEnv(sc), "HEW_PROVIDER=mock")
			case "anthropic":
				env = w.startMock(sc).anthropicEnv()
			case "openai":
				env = w.startMock(sc).openaiEnv()
			}
			r := w.hewEnv(env, "-p", "--output-format", "stream-json", "go")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			evs := events(t, r)
			if evs[0].str("type") != "init" {
				t.Fatalf("first event is %q, want init\n%s", evs[0].str("type"), r)
			}
			init := evs[0]
			requireFields(t, init, "session_id", "model", "tools", "permission_mode")
			if init.str("session_id") == "" || init.str("permission_mode") != "default" {
				t.Fatalf("init: %v", init)
			}
			texts := ofType(evs, "text")
			var all strings.Builder
			for _, e := range texts {
				requireFields(t, e, "text")
				all.WriteString(e.str("text"))
			}
			if !strings.Contains(all.String(), "I'll read it.") || !strings.Contains(all.String(), "It says hello.") {
				t.Fatalf("text events do not carry the assistant text: %q", all.String())
			}
			uses := ofType(evs, "tool_use")
			if len(uses) != 2 {
				t.Fatalf("want 2 tool_use events\n%s", r)
			}
			for _, e := range uses {
				requireFields(t, e, "id", "name", "input")
			}
			// tool_use events come in the model's order.
			if uses[0].str("name") != "read_file" || uses[1].str("name") != "write_file" {
				t.Fatalf("tool_use names %q, %q", uses[0].str("name"), uses[1].str("name"))
			}
			if in, _ := uses[0]["input"].(map[string]any); in["file_path"] != "greeting.txt" {
				t.Fatalf("tool_use input %v", uses[0]["input"])
			}
			results := ofType(evs, "tool_result")
			if len(results) != 2 {
				t.Fatalf("want 2 tool_result events\n%s", r)
			}
			byID := map[string]event{}
			for _, e := range results {
				requireFields(t, e, "id", "is_error", "content")
				byID[e.str("id")] = e
			}
			read, write := byID[uses[0].str("id")], byID[uses[1].str("id")]
			if read == nil || write == nil {
				t.Fatalf("tool_result ids do not match tool_use ids\n%s", r)
			}
			if read["is_error"] != false || !strings.Contains(read.str("content"), "hello") {
				t.Fatalf("read result: %v", read)
			}
			// Headless default mode: the write would ask, so it is denied.
			if write["is_error"] != true || !strings.HasPrefix(write.str("content"), "Action denied") {
				t.Fatalf("denied write's result must start with \"Action denied\": %v", write)
			}
			denials := ofType(evs, "permission_denial")
			if len(denials) != 1 || denials[0].str("tool") != "write_file" {
				t.Fatalf("want one permission_denial for write_file\n%s", r)
			}
			requireFields(t, denials[0], "tool", "reason")
			res := lastResult(t, r)
			requireFields(t, res, "stop_reason", "result", "session_id", "num_turns", "usage", "cost_usd", "permission_denials")
			if res.str("stop_reason") != "completed" || res.str("result") != "It says hello." {
				t.Fatalf("result: %v", res)
			}
			if res.str("session_id") != init.str("session_id") {
				t.Fatalf("result session_id %q != init %q", res.str("session_id"), init.str("session_id"))
			}
			if n, _ := res["num_turns"].(float64); n != 2 {
				t.Fatalf("num_turns %v, want 2", res["num_turns"])
			}
			usage, _ := res["usage"].(map[string]any)
			for _, k := range []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"} {
				if _, ok := usage[k].(float64); !ok {
					t.Errorf("usage.%s missing or not a number: %v", k, res["usage"])
				}
			}
			if in, _ := usage["input_tokens"].(float64); in <= 0 {
				t.Errorf("usage.input_tokens = %v, want > 0", usage["input_tokens"])
			}
			pd, _ := res["permission_denials"].([]any)
			if len(pd) != 1 {
				t.Fatalf("permission_denials: %v", res["permission_denials"])
			}
			if _, err := readFileErr(w, "out.txt"); err == nil {
				t.Fatalf("a denied write_file still wrote the file")
			}
		})
	}
}

// json prints only the result object; permission_denials is an array even
// when empty.
func TestJSONPrintsOnlyResult(t *testing.T) {
	w := newWorld(t)
	w.write("greeting.txt", "hello\n")
	r := w.hew("-p", "--mock", "--output-format", "json", "read greeting.txt")
	res := jsonResult(t, r)
	requireFields(t, res, "stop_reason", "result", "session_id", "num_turns", "usage", "cost_usd", "permission_denials")
	if _, ok := res["permission_denials"].([]any); !ok {
		t.Fatalf("permission_denials must be an array: %v", res["permission_denials"])
	}
	if !strings.Contains(res.str("result"), "hello") {
		t.Fatalf("result %q lacks the file's content", res.str("result"))
	}
}

// Text mode: each tool call is one line plus at most 5 result lines;
// --verbose shows the full result. Output to a pipe carries no ANSI colour
// even without NO_COLOR.
func TestTextModeToolLinesAndVerbose(t *testing.T) {
	w := newWorld(t)
	var env []string
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			env = append(env, kv)
		}
	}
	w.env = env
	r := w.hew("-p", "--mock", "--yolo", "run `seq 101 130`")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	all := r.stdout + r.stderr
	if strings.Contains(all, "\x1b[") {
		t.Errorf("ANSI escapes in piped output: %q", all)
	}
	if strings.Contains(all, "110") {
		t.Errorf("without --verbose more than 5 result lines are shown:\n%s", all)
	}
	r = w.hew("-p", "--mock", "--yolo", "--verbose", "run `seq 101 130`")
	if !strings.Contains(r.stdout+r.stderr, "129") {
		t.Errorf("--verbose does not show the full result:\n%s", r)
	}
}
