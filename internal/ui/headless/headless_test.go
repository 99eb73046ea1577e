package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// script is a run with a read, a denied write and a final answer, as the
// agent reports it.
func script() (Init, []agent.Event, agent.TurnResult) {
	in := Init{SessionID: "01SESSION", Model: "mock", Provider: "mock", Tools: []string{"read_file", "write_file"}, PermissionMode: "default", Cwd: "/tmp/demo"}
	events := []agent.Event{
		agent.TurnStarted{Prompt: "read greeting.txt and fix it"},
		agent.RequestStarted{RoundTrip: 1},
		agent.TextDelta{Text: "I'll read "},
		agent.TextDelta{Text: "it."},
		agent.PermissionDecided{ID: "t1", Tool: "read_file", Decision: "allow", Reason: "read inside the project", Source: "mode:default"},
		agent.ToolStarted{ID: "t1", Name: "read_file", Input: json.RawMessage(`{"file_path":"greeting.txt"}`), Summary: "greeting.txt"},
		agent.ToolFinished{ID: "t1", Name: "read_file", Result: "1\thello\n2\tworld\n3\ta\n4\tb\n5\tc\n6\td\n7\te\n", Elapsed: 3 * time.Millisecond},
		agent.UsageUpdated{Request: llm.Usage{InputTokens: 10, OutputTokens: 5}},
		agent.RequestStarted{RoundTrip: 2},
		agent.PermissionDecided{ID: "t2", Tool: "write_file", Decision: "deny", Reason: "would ask: write outside acceptEdits", Source: "mode:default"},
		agent.ToolFinished{ID: "t2", Name: "write_file", Result: "Action denied: would ask: write outside acceptEdits", IsError: true,
			Receipt: &agent.Receipt{Input: json.RawMessage(`{"file_path":"greeting.txt","content":"hi"}`)}},
		agent.Notice{Level: "warn", Text: "sandbox unavailable: commands run unconfined"},
		agent.RequestStarted{RoundTrip: 3},
		agent.TextDelta{Text: "It says hello; I could not write the fix."},
		agent.TurnEnded{},
	}
	res := agent.TurnResult{
		Text: "It says hello; I could not write the fix.", StopReason: agent.StopCompleted,
		Usage:      llm.Usage{InputTokens: 30, OutputTokens: 12, CacheReadTokens: 7, CacheWriteTokens: 3},
		Denials:    []agent.Denial{{ToolUseID: "t2", Tool: "write_file", Input: json.RawMessage(`{"file_path":"greeting.txt","content":"hi"}`), Reason: "would ask: write outside acceptEdits"}},
		RoundTrips: 3, ToolCalls: 2, SessionID: "01SESSION", DurationMS: 42,
	}
	return in, events, res
}

func run(opt Options) (string, string) {
	var out, errOut bytes.Buffer
	opt.Out, opt.Err = &out, &errOut
	w := New(opt)
	in, events, res := script()
	w.Start(in)
	for _, e := range events {
		w.Handle(e)
	}
	w.Finish(res)
	w.Finish(res) // a second call must not write a second result
	return out.String(), errOut.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"stream-json", Options{Format: FormatStreamJSON}},
		{"json", Options{Format: FormatJSON}},
		{"text", Options{Format: FormatText}},
		{"text-verbose", Options{Format: FormatText, Verbose: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut := run(tc.opt)
			golden(t, tc.name+".stdout.golden", out)
			golden(t, tc.name+".stderr.golden", errOut)
		})
	}
}

// TestStreamJSONContract checks the SPEC section 6 promises line by line, so
// a wrongly updated golden file cannot hide a broken contract.
func TestStreamJSONContract(t *testing.T) {
	out, _ := run(Options{Format: FormatStreamJSON})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var types []string
	used := map[string]bool{}
	for i, l := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, l)
		}
		typ, _ := obj["type"].(string)
		types = append(types, typ)
		switch typ {
		case "init":
			for _, k := range []string{"session_id", "model", "tools", "permission_mode"} {
				if _, ok := obj[k]; !ok {
					t.Errorf("init lacks %s", k)
				}
			}
		case "tool_use":
			used[obj["id"].(string)] = true
		case "permission_denial":
			if !used[obj["id"].(string)] {
				t.Errorf("permission_denial %v comes before its tool_use", obj["id"])
			}
		case "tool_result":
			if !used[obj["id"].(string)] {
				t.Errorf("tool_result %v comes before its tool_use", obj["id"])
			}
		case "result":
			for _, k := range []string{"stop_reason", "result", "session_id", "num_turns", "usage", "cost_usd", "permission_denials"} {
				if _, ok := obj[k]; !ok {
					t.Errorf("result lacks %s", k)
				}
			}
			u := obj["usage"].(map[string]any)
			for _, k := range []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"} {
				if _, ok := u[k]; !ok {
					t.Errorf("usage lacks %s", k)
				}
			}
			if d := obj["permission_denials"].([]any); len(d) != 1 {
				t.Errorf("permission_denials = %v, want the one denied write", d)
			}
		}
	}
	if types[0] != "init" || types[len(types)-1] != "result" {
		t.Errorf("event order %v: want init first and result last", types)
	}
	if n := strings.Count(out, `"type":"result"`); n != 1 {
		t.Errorf("%d result objects, want 1", n)
	}
	if !strings.Contains(out, `{"type":"permission_denial","id":"t2","tool":"write_file"`) {
		t.Errorf("no permission_denial event for the refused write:\n%s", out)
	}
}

func TestResultObjectUnknownCostAndEmptyLists(t *testing.T) {
	obj := ResultObject(agent.TurnResult{StopReason: agent.StopMaxTurns, CostUSD: -1})
	b, _ := json.Marshal(obj)
	s := string(b)
	for _, want := range []string{`"cost_usd":null`, `"permission_denials":[]`, `"stop_reason":"max_turns"`, `"is_error":true`} {
		if !strings.Contains(s, want) {
			t.Errorf("result %s lacks %s", s, want)
		}
	}
}

func TestTextStopReasonOnStderr(t *testing.T) {
	var out, errOut bytes.Buffer
	w := New(Options{Out: &out, Err: &errOut})
	w.Finish(agent.TurnResult{StopReason: agent.StopMaxTurns, Text: "partial"})
	if out.String() != "partial\n" {
		t.Errorf("stdout = %q, want the answer only", out.String())
	}
	if !strings.Contains(errOut.String(), "stopped: max_turns") {
		t.Errorf("stderr = %q, want the stop reason", errOut.String())
	}
}

func TestToolResultShortened(t *testing.T) {
	long := strings.Repeat("x", MaxContent+500)
	for _, verbose := range []bool{false, true} {
		var out bytes.Buffer
		w := New(Options{Format: FormatStreamJSON, Out: &out, Verbose: verbose})
		w.Handle(agent.ToolFinished{ID: "a", Name: "run_shell", Result: long})
		if got := strings.Contains(out.String(), "500 more characters"); got == verbose {
			t.Errorf("verbose=%v: shortened=%v", verbose, got)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Format
		ok   bool
	}{{"", FormatText, true}, {"text", FormatText, true}, {"json", FormatJSON, true}, {"stream-json", FormatStreamJSON, true}, {"yaml", "", false}} {
		got, err := ParseFormat(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseFormat(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestDenierNeverAllows(t *testing.T) {
	a, why := Denier{}.Approve(context.Background(), agent.ApprovalRequest{Tool: "run_shell", Reason: "dangerous: recursive delete"})
	if a != agent.ApproveDeny || !strings.Contains(why, "recursive delete") {
		t.Errorf("Denier = %q %q", a, why)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteErrorKept(t *testing.T) {
	w := New(Options{Format: FormatJSON, Out: failWriter{}})
	w.Finish(agent.TurnResult{StopReason: agent.StopCompleted})
	if w.Err() == nil {
		t.Error("a failed write went unnoticed")
	}
}

func TestStreamTextComesByLine(t *testing.T) {
	var out bytes.Buffer
	w := New(Options{Format: FormatStreamJSON, Out: &out})
	for _, d := range []string{"Hel", "lo\nwor", "ld", "\nand", " more"} {
		w.Handle(agent.TextDelta{Text: d})
	}
	w.Handle(agent.ToolStarted{ID: "x", Name: "list_files", Input: json.RawMessage(`{}`)})
	want := `{"type":"text","text":"Hello\n"}
{"type":"text","text":"world\n"}
{"type":"text","text":"and more"}
{"type":"tool_use","id":"x","name":"list_files","input":{}}
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}

	// A long line without a line end still streams, cut after a space.
	out.Reset()
	for i := 0; i < 30; i++ {
		w.Handle(agent.TextDelta{Text: "word "})
	}
	if n := strings.Count(out.String(), `"type":"text"`); n == 0 {
		t.Error("150 characters without a newline were all held back")
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasSuffix(l, ` "}`) {
			t.Errorf("text cut inside a word: %s", l)
		}
	}
}

// A retried request voids its partial text: what is held back is dropped,
// and the retry event says how much already-written text to discard.
func TestStreamRetryDiscardsPartialText(t *testing.T) {
	var out bytes.Buffer
	w := New(Options{Format: FormatStreamJSON, Out: &out})
	w.Handle(agent.RequestStarted{RoundTrip: 1})
	w.Handle(agent.TextDelta{Text: "First line ✓\nhalf a sec"})
	w.Handle(agent.Retrying{Attempt: 1, Reason: "stream cut"})
	w.Handle(agent.RequestStarted{RoundTrip: 1})
	w.Handle(agent.TextDelta{Text: "First line ✓\nwhole second\n"})
	want := `{"type":"text","text":"First line ✓\n"}
{"type":"retry","attempt":1,"reason":"stream cut","discard_text_chars":13}
{"type":"text","text":"First line ✓\nwhole second\n"}
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// BenchmarkStreamJSON measures the stream-json writer on a turn of 200
// text deltas and 20 tool calls.
func BenchmarkStreamJSON(b *testing.B) {
	var events []agent.Event
	for i := 0; i < 20; i++ {
		for j := 0; j < 10; j++ {
			events = append(events, agent.TextDelta{Text: "some words "})
		}
		id := fmt.Sprintf("t%d", i)
		events = append(events,
			agent.ToolStarted{ID: id, Name: "read_file", Input: json.RawMessage(`{"file_path":"a.go"}`)},
			agent.ToolFinished{ID: id, Name: "read_file", Result: strings.Repeat("line of code\n", 50)})
	}
	b.ReportAllocs()
	for b.Loop() {
		w := New(Options{Format: FormatStreamJSON, Out: io.Discard})
		for _, e := range events {
			w.Handle(e)
		}
		w.Finish(agent.TurnResult{StopReason: agent.StopCompleted})
	}
}

func TestJSONWarningsGoToStderr(t *testing.T) {
	var out, errOut bytes.Buffer
	w := New(Options{Format: FormatJSON, Out: &out, Err: &errOut})
	w.Handle(agent.Notice{Level: "warn", Text: `MCP server "broken" failed to start`})
	w.Handle(agent.Notice{Level: "info", Text: "compacted"})
	w.Handle(agent.TextDelta{Text: "hi"})
	if out.Len() != 0 || errOut.String() != "hew: MCP server \"broken\" failed to start\n" {
		t.Fatalf("stdout %q stderr %q", out.String(), errOut.String())
	}
}

// cost_usd carries no float noise from summing prices (issue 12.16).
func TestCostWithoutFloatNoise(t *testing.T) {
	var out bytes.Buffer
	w := New(Options{Format: FormatJSON, Out: &out})
	w.Finish(agent.TurnResult{StopReason: agent.StopCompleted, CostUSD: 0.021366000000000003, RoundTrips: 1})
	if !strings.Contains(out.String(), `"cost_usd":0.021366,`) {
		t.Errorf("result = %s", out.String())
	}
	if got := usageLine(agent.TurnResult{RoundTrips: 1, ToolCalls: 1, CostUSD: 0.5}); !strings.Contains(got, "1 round trip, 1 tool call,") {
		t.Errorf("usage line %q", got)
	}
}

func TestCheckFormats(t *testing.T) {
	for _, tc := range []struct{ out, in, err string }{
		{"text", "text", ""},
		{"json", "text", ""},
		{"stream-json", "stream-json", ""},
		{"json", "stream-json", ""},
		{"", "text", `unknown --output-format ""`},
		{"yaml", "text", `unknown --output-format "yaml"`},
		{"text", "stream-json", "needs --output-format stream-json"},
		{"stream-json", "xml", `unknown --input-format "xml"`},
	} {
		err := CheckFormats(tc.out, tc.in)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s/%s: %v, want %q", tc.out, tc.in, err, tc.err)
		}
	}
}
