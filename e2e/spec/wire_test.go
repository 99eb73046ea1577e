package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every request hew sends is protocol-valid: each tool call of an
// assistant message is answered, in order, right after it (issue 3's
// pairing invariant as seen on the wire), through parallel reads, a denial,
// a tool error and a validation failure.
func TestWirePairing(t *testing.T) {
	const sc = `{"turns":[
	 {"text":"batch","tool_calls":[
	   {"name":"read_file","input":{"file_path":"a.txt"}},
	   {"name":"read_file","input":{"file_path":"missing.txt"}},
	   {"name":"write_file","input":{"file_path":"denied.txt","content":"x"}},
	   {"name":"grep_search","input":{}},
	   {"name":"list_files","input":{}}]},
	 {"text":"again","tool_calls":[{"name":"read_file","input":{"file_path":"a.txt"}}]},
	 {"text":"done"}]}`
	for _, via := range []string{"anthropic", "openai"} {
		t.Run(via, func(t *testing.T) {
			w := newWorld(t)
			w.write("a.txt", "alpha\n")
			ms := w.startMock(sc)
			env := ms.anthropicEnv()
			if via == "openai" {
				env = ms.openaiEnv()
			}
			r := w.hewEnv(env, "-p", "--output-format", "json", "go")
			if res := jsonResult(t, r); r.code != 0 || res.str("result") != "done" {
				t.Fatalf("run failed\n%s", r)
			}
			reqs := ms.requests()
			if len(reqs) < 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			for i, q := range reqs {
				raw, _ := json.Marshal(q.body["messages"])
				var msgs []map[string]any
				_ = json.Unmarshal(raw, &msgs)
				var err string
				if via == "anthropic" {
					err = checkAnthropicPairs(msgs)
				} else {
					err = checkOpenAIPairs(msgs)
				}
				if err != "" {
					t.Errorf("request %d: %s\n%s", i, err, raw)
				}
			}
		})
	}
}

func checkAnthropicPairs(msgs []map[string]any) string {
	blocks := func(m map[string]any) []map[string]any {
		var out []map[string]any
		list, _ := m["content"].([]any)
		for _, b := range list {
			if bm, ok := b.(map[string]any); ok {
				out = append(out, bm)
			}
		}
		return out
	}
	for i, m := range msgs {
		if m["role"] != "assistant" {
			continue
		}
		var ids []string
		for _, b := range blocks(m) {
			if b["type"] == "tool_use" {
				ids = append(ids, b["id"].(string))
			}
		}
		if len(ids) == 0 {
			continue
		}
		if i+1 >= len(msgs) || msgs[i+1]["role"] != "user" {
			return "tool_use without a following user message"
		}
		var got []string
		for _, b := range blocks(msgs[i+1]) {
			if b["type"] == "tool_result" {
				got = append(got, b["tool_use_id"].(string))
			}
		}
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			return "tool_result ids " + strings.Join(got, ",") + " do not answer " + strings.Join(ids, ",") + " in order"
		}
	}
	return ""
}

func checkOpenAIPairs(msgs []map[string]any) string {
	for i, m := range msgs {
		calls, _ := m["tool_calls"].([]any)
		if m["role"] != "assistant" || len(calls) == 0 {
			continue
		}
		for k, c := range calls {
			id, _ := c.(map[string]any)["id"].(string)
			j := i + 1 + k
			if j >= len(msgs) || msgs[j]["role"] != "tool" || msgs[j]["tool_call_id"] != id {
				return "tool call " + id + " is not answered by the tool message right after its assistant message"
			}
		}
	}
	return ""
}

// Each request's message list extends the previous one byte for byte
// (cache markers aside) and the system prompt never changes within a run
// (issue 6, cache discipline).
func TestRequestsExtendPrefix(t *testing.T) {
	w := newWorld(t)
	w.write("a.txt", "alpha\n")
	w.write("b.txt", "beta\n")
	ms := w.startMock(threeRoundTrips)
	r := w.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	reqs := ms.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	strip := func(v any) string {
		b, _ := json.Marshal(v)
		var x any
		_ = json.Unmarshal(b, &x)
		var walk func(any)
		walk = func(v any) {
			switch t := v.(type) {
			case map[string]any:
				delete(t, "cache_control")
				for _, c := range t {
					walk(c)
				}
			case []any:
				for _, c := range t {
					walk(c)
				}
			}
		}
		walk(x)
		out, _ := json.Marshal(x)
		return string(out)
	}
	for i := 1; i < len(reqs); i++ {
		prev, _ := reqs[i-1].body["messages"].([]any)
		cur, _ := reqs[i].body["messages"].([]any)
		if len(cur) <= len(prev) || strip(cur[:len(prev)]) != strip(prev) {
			t.Errorf("request %d does not extend request %d's messages", i, i-1)
		}
		if strip(reqs[i].body["system"]) != strip(reqs[0].body["system"]) {
			t.Errorf("request %d changed the system prompt", i)
		}
	}
}
