package scenario

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestParseSpecExample(t *testing.T) {
	sc, err := Parse([]byte(`{"turns": [
  {"text": "I'll read it.", "tool_calls": [{"name": "read_file", "input": {"file_path": "greeting.txt"}}]},
  {"text": "It says hello."}
 ],
 "side": {"compact": "…summary…", "goal_eval": "{\"ok\": true, \"reason\": \"…\"}", "classifier": "…", "memory_recall": "…"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Turns) != 2 || sc.Turns[0].ToolCalls[0].ID != "toolu_s01_1" || string(sc.Turns[0].ToolCalls[0].Input) != `{"file_path": "greeting.txt"}` {
		t.Fatalf("%+v", sc.Turns)
	}
	if sc.Side["goal_eval"] != `{"ok": true, "reason": "…"}` || sc.Side["compact"] != "…summary…" {
		t.Fatalf("side %v", sc.Side)
	}
	// Ids are deterministic: parsing again gives the same.
	sc2, _ := Parse([]byte(`{"turns":[{"text":"a"},{"tool_calls":[{"name":"x"},{"name":"y","input":null}]}]}`))
	if sc2.Turns[1].ToolCalls[1].ID != "toolu_s02_2" || string(sc2.Turns[1].ToolCalls[1].Input) != "{}" {
		t.Fatalf("%+v", sc2.Turns[1].ToolCalls)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "empty file"},
		{`{"turns": [`, "ends too early"},
		{"{\n  \"turns\": [\n    {\"text\": 5}\n  ]\n}", "turn 1: line 3 col 15: text must be string, not number"},
		{`{"turns":[{"txt":"a"}]}`, `turn 1: unknown field "txt"`},
		{`{"tunrs":[]}`, `unknown field "tunrs"`},
		{`{"turns":[{"tool_calls":[{"input":{}}]}]}`, "turn 1: tool_calls[0]: missing name"},
		{`{"turns":[{"tool_calls":[{"name":"x","input":[1]}]}]}`, "input must be a JSON object"},
		{`{"turns":[{"error":{"status":200}}]}`, "error.status 200"},
		{`{"turns":[{"stop_reason":"length"}]}`, `stop_reason "length"`},
		{`{"turns":[{"text":"a"},{"cut_after_chunks":-1}]}`, "turn 2: cut_after_chunks"},
		{`{"side":{"summary":"x"}}`, `side: unknown purpose "summary"`},
		{`{"turns":[]} {}`, "extra data"},
		{`[1]`, `must be a JSON object with "turns"`}, {`{"turns":{}}`, "turns must be an array"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestLoadNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(p, []byte(`{"turns":[{"error":{"status":"529"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), "broken.json") || !strings.Contains(err.Error(), "turn 1") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "nope.json")); err == nil || !strings.Contains(err.Error(), "nope.json") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestPlayerFaults(t *testing.T) {
	sc, err := Parse([]byte(`{"turns":[
		{"error":{"status":529,"times":2}},
		{"text":"a","error":{"status":429}},
		{"text":"b","cut_after_chunks":3,"cut_times":2},
		{"text":"c","stream_error":{"after_chunks":1}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlayer(sc)
	var got []string
	for i := 0; i < 10; i++ {
		st := p.Next()
		switch {
		case st.Turn == nil:
			got = append(got, "end")
		case st.Fault != nil:
			got = append(got, "fault"+strconv.Itoa(st.Fault.Status))
		case st.CutAfter > 0:
			got = append(got, "cut:"+st.Turn.Text)
		case st.StreamError != nil:
			got = append(got, "err:"+st.Turn.Text)
		default:
			got = append(got, st.Turn.Text)
		}
	}
	want := "fault529 fault529 fault429 a cut:b cut:b b err:c c end"
	if strings.Join(got, " ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}
