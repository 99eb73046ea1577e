package openai

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
)

type wantCall struct{ id, name, input string }

// Each recorded stream under testdata is one quirk met in the field.
var fixtures = []struct {
	file      string
	thinking  string
	text      string
	calls     []wantCall
	stop      llm.StopReason
	usage     llm.Usage
	err       string
	retryable bool
}{
	{file: "reasoning_content.sse", thinking: "The user wants a greeting.", text: "Hello!", stop: llm.StopEndTurn,
		usage: llm.Usage{InputTokens: 4, OutputTokens: 9, CacheReadTokens: 16}},
	{file: "reasoning_field.sse", thinking: "Thinking via the reasoning field.", text: "Done.", stop: llm.StopEndTurn},
	{file: "reasoning_details.sse", thinking: "Step one. Step two.", text: "Answer.", stop: llm.StopEndTurn},
	{file: "think_tags_split.sse", thinking: "I should say hi politely.", text: "Hi there <b>friend</b>.", stop: llm.StopEndTurn},
	{file: "index_missing.sse", stop: llm.StopToolUse, calls: []wantCall{
		{"call_a", "read_file", `{"file_path":"a.go"}`}, {"call_b", "read_file", `{"file_path":"b.go"}`}}},
	{file: "index_always_zero.sse", stop: llm.StopToolUse, calls: []wantCall{
		{"call_1", "read_file", `{"file_path":"a.go"}`}, {"call_2", "list_files", `{"path":"src"}`}}},
	{file: "index_zero_no_ids.sse", stop: llm.StopToolUse, calls: []wantCall{
		{"", "read_file", `{"file_path":"a.go"}`}, {"", "read_file", `{"file_path":"b.go"}`}}},
	{file: "id_and_type_missing.sse", stop: llm.StopToolUse, calls: []wantCall{{"", "run_shell", `{"command":"ls"}`}}},
	{file: "args_object.sse", stop: llm.StopToolUse, calls: []wantCall{{"", "grep_search", `{"pattern":"func main","path":"."}`}}},
	{file: "args_empty.sse", stop: llm.StopToolUse, calls: []wantCall{{"call_e", "list_files", `{}`}}},
	{file: "args_empty_object_then_json.sse", stop: llm.StopToolUse, calls: []wantCall{{"call_x", "read_file", `{"file_path":"x.go"}`}}},
	{file: "string_wrapped_args.sse", stop: llm.StopToolUse, calls: []wantCall{{"call_w", "read_file", `{"file_path":"w.go"}`}}},
	{file: "finish_stop_with_tools.sse", text: "Let me look.", stop: llm.StopToolUse, calls: []wantCall{{"call_s", "read_file", `{"file_path":"s.go"}`}}},
	{file: "no_finish_reason.sse", stop: llm.StopToolUse, calls: []wantCall{{"call_n", "read_file", `{"file_path":"n.go"}`}}},
	{file: "usage_last_chunk.sse", text: "Hi.", stop: llm.StopEndTurn, usage: llm.Usage{InputTokens: 20, OutputTokens: 2, CacheReadTokens: 100}},
	{file: "filler_deltas.sse", stop: llm.StopToolUse, calls: []wantCall{{"call_f", "list_files", `{}`}}},
	{file: "finish_without_done.sse", text: "Complete answer.", stop: llm.StopEndTurn},
	{file: "length_truncated_args.sse", text: "Writing the file.", stop: llm.StopMaxTokens},
	{file: "error_in_stream.sse", err: "Upstream provider overloaded", retryable: true},
	{file: "error_in_stream_fatal.sse", err: "maximum context length", retryable: false},
	{file: "malformed_json.sse", err: "malformed stream: data line is not a JSON chunk"},
	{file: "malformed_args.sse", err: "malformed stream: tool call call_m (read_file): arguments are not a JSON object"},
	{file: "cut_no_done.sse", err: "stream cut before [DONE]", retryable: true},
}

func TestFixtures(t *testing.T) {
	seen := map[string]bool{}
	for _, fx := range fixtures {
		seen[fx.file] = true
		t.Run(strings.TrimSuffix(fx.file, ".sse"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", fx.file))
			if err != nil {
				t.Fatal(err)
			}
			var events []llm.Event
			resp, err := decodeStream(strings.NewReader(string(data)), Profiles["generic"], func(e llm.Event) { events = append(events, e) }, nil)
			if fx.err != "" {
				var re *retry.Error
				if err == nil || !strings.Contains(err.Error(), fx.err) || errors.As(err, &re) != fx.retryable {
					t.Fatalf("err = %v (retryable %v), want %q retryable=%v", err, errors.As(err, &re), fx.err, fx.retryable)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkResponse(t, resp, events, fx.thinking, fx.text, fx.calls, fx.stop)
			if fx.usage != (llm.Usage{}) && resp.Usage != fx.usage {
				t.Errorf("usage %+v, want %+v", resp.Usage, fx.usage)
			}
		})
	}
	files, _ := filepath.Glob("testdata/*.sse")
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("fixture %s has no test", f)
		}
	}
}

func checkResponse(t *testing.T, resp *llm.Response, events []llm.Event, thinking, text string, calls []wantCall, stop llm.StopReason) {
	t.Helper()
	var gotThinking string
	for _, b := range resp.Message.Content {
		if b.Type == llm.BlockThinking {
			gotThinking += b.Text
		}
	}
	if gotThinking != thinking || resp.Message.Text() != text {
		t.Errorf("thinking %q text %q, want %q / %q", gotThinking, resp.Message.Text(), thinking, text)
	}
	var streamedThinking, streamedText string
	started := map[string]bool{}
	var done []llm.Block
	for _, e := range events {
		switch e.Type {
		case llm.EvThinkingDelta:
			streamedThinking += e.Text
		case llm.EvTextDelta:
			streamedText += e.Text
		case llm.EvToolStart:
			started[e.Block.ID] = true
		case llm.EvToolDone:
			done = append(done, *e.Block)
		}
	}
	if streamedThinking != thinking || streamedText != text {
		t.Errorf("streamed thinking %q text %q", streamedThinking, streamedText)
	}
	uses := resp.Message.ToolUses()
	if len(uses) != len(calls) || len(done) != len(calls) {
		t.Fatalf("calls %+v (done events %d), want %+v", uses, len(done), calls)
	}
	ids := map[string]bool{}
	for i, w := range calls {
		u := uses[i]
		if u.Name != w.name || string(u.Input) != w.input {
			t.Errorf("call %d = %s %s, want %s %s", i, u.Name, u.Input, w.name, w.input)
		}
		if w.id != "" && u.ID != w.id || w.id == "" && !strings.HasPrefix(u.ID, genPrefix) {
			t.Errorf("call %d id %q, want %q", i, u.ID, w.id)
		}
		if ids[u.ID] || !started[u.ID] || done[i].ID != u.ID || string(done[i].Input) != w.input {
			t.Errorf("call %d: duplicate id, or start/done events do not match", i)
		}
		ids[u.ID] = true
		if !json.Valid(u.Input) {
			t.Errorf("invalid input %s", u.Input)
		}
	}
	if resp.StopReason != stop {
		t.Errorf("stop %s, want %s", resp.StopReason, stop)
	}
}

func TestThinkSplitter(t *testing.T) {
	tests := []struct {
		chunks         []string
		thinking, text string
	}{
		{[]string{"<think>a</think>b"}, "a", "b"},
		{[]string{"<", "t", "h", "i", "n", "k", ">", "x", "<", "/", "think", ">", "\n", "y"}, "x", "y"},
		{[]string{"  <think>x</thi", "nk>\n\ny"}, "x", "y"},
		{[]string{"plain <think>not a tag here</think>"}, "", "plain <think>not a tag here</think>"},
		{[]string{"<th", "is is text"}, "", "<this is text"},
		{[]string{"<think>unterminated"}, "unterminated", ""},
		{[]string{"<thin"}, "", "<thin"},
		{[]string{"<think>a</", "b</think>c"}, "a</b", "c"},
	}
	for _, tc := range tests {
		var s thinkSplitter
		var th, tx string
		for _, c := range tc.chunks {
			a, b := s.feed(c)
			th, tx = th+a, tx+b
		}
		a, b := s.flush()
		th, tx = th+a, tx+b
		if th != tc.thinking || tx != tc.text {
			t.Errorf("%q: thinking %q text %q, want %q / %q", tc.chunks, th, tx, tc.thinking, tc.text)
		}
	}
}

func TestFinalArgs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "{}"}, {"  ", "{}"}, {"null", "{}"}, {"{}", "{}"},
		{`{}{"a":1}`, `{"a":1}`}, {`{ "a" : 1 }`, `{"a":1}`}, {`"{\"a\":1}"`, `{"a":1}`},
		{`{"a":`, ""}, {`[1]`, ""}, {`42`, ""}, {`{"a":1}{"b":2}`, ""},
	}
	for _, tc := range tests {
		got, ok := finalArgs(tc.in)
		if tc.want == "" && ok || tc.want != "" && string(got) != tc.want {
			t.Errorf("finalArgs(%q) = %s, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestWhitespaceAfterCompleteCall(t *testing.T) {
	in := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"file_path\":\"x\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"list_files","arguments":"{}"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\n"}}]}}]}

data: [DONE]

`
	resp, err := decodeStream(strings.NewReader(in), Profiles["generic"], nil, nil)
	if err != nil || len(resp.Message.ToolUses()) != 2 {
		t.Fatalf("%v %+v", err, resp)
	}
	bad := strings.Replace(in, `"arguments":"\n"`, `"arguments":",\"x\":1}"`, 1)
	if _, err := decodeStream(strings.NewReader(bad), Profiles["generic"], nil, nil); err == nil || !strings.Contains(err.Error(), "after it was complete") {
		t.Fatalf("more arguments for a finished call must be an error: %v", err)
	}
}
