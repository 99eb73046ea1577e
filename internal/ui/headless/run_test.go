package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/permission"
)

// fakeSession answers each prompt with a completed turn echoing it, or
// with stop when the prompt is "limit".
type fakeSession struct {
	prompts  []string
	prepared bool
	cancel   func() // called after the turn "stop me"
}

func (f *fakeSession) Prepare(context.Context) error { f.prepared = true; return nil }
func (f *fakeSession) ID() string                    { return "01S" }
func (f *fakeSession) Model() string                 { return "m" }
func (f *fakeSession) ProviderName() string          { return "mock" }
func (f *fakeSession) ToolNames() []string           { return []string{"read_file"} }
func (f *fakeSession) Mode() permission.Mode         { return permission.ModePlan }
func (f *fakeSession) Root() string                  { return "/p" }
func (f *fakeSession) Submit(_ context.Context, text string) agent.TurnResult {
	f.prompts = append(f.prompts, text)
	if text == "stop me" && f.cancel != nil {
		f.cancel()
	}
	if text == "limit" {
		return agent.TurnResult{StopReason: agent.StopMaxTurns, SessionID: "01S"}
	}
	return agent.TurnResult{Text: "re: " + text, StopReason: agent.StopCompleted, SessionID: "01S"}
}

func userLine(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	return string(b) + "\n"
}

// Each input line is one turn of the same session with its own result
// line; the outcome is the last line's.
func TestConverse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		first   string
		in      string
		prompts []string
		stop    agent.StopReason
		errKind string // "", "input", "read", "cancel"
		results int
	}{
		{name: "no input", stop: agent.StopCompleted},
		{name: "prompt argument only", first: "hello", prompts: []string{"hello"}, stop: agent.StopCompleted, results: 1},
		{name: "two lines and blanks", in: userLine("a") + "\n  \n" + userLine("b"), prompts: []string{"a", "b"}, stop: agent.StopCompleted, results: 2},
		{name: "argument first", first: "a", in: userLine("b"), prompts: []string{"a", "b"}, stop: agent.StopCompleted, results: 2},
		{name: "last turn hit a limit", in: userLine("limit"), prompts: []string{"limit"}, stop: agent.StopMaxTurns, results: 1},
		{name: "bad last line", in: userLine("a") + "not json\n", prompts: []string{"a"}, stop: agent.StopError, errKind: "input", results: 2},
		{name: "bad line then a good one", in: `{"type":"assistant"}` + "\n" + userLine("b"), prompts: []string{"b"}, stop: agent.StopCompleted, results: 2},
		{name: "line too long", in: strings.Repeat("x", maxInputLine+1), stop: agent.StopCompleted, errKind: "read"},
		{name: "interrupted", in: userLine("stop me") + userLine("never"), prompts: []string{"stop me"}, stop: agent.StopCompleted, errKind: "cancel", results: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w := New(Options{Format: FormatStreamJSON, Out: &out})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &fakeSession{cancel: cancel}
			res, err := w.Converse(ctx, s, strings.NewReader(tc.in), tc.first)
			if strings.Join(s.prompts, "|") != strings.Join(tc.prompts, "|") || !s.prepared {
				t.Errorf("prompts %q (prepared %v), want %q", s.prompts, s.prepared, tc.prompts)
			}
			if res.StopReason != tc.stop {
				t.Errorf("stop %q, want %q", res.StopReason, tc.stop)
			}
			var bad *InputError
			kind := ""
			switch {
			case errors.Is(err, context.Canceled):
				kind = "cancel"
			case errors.As(err, &bad):
				kind = "input"
			case err != nil:
				kind = "read"
			}
			if kind != tc.errKind {
				t.Errorf("error %v (%s), want %s", err, kind, tc.errKind)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if !strings.Contains(lines[0], `"type":"init"`) || !strings.Contains(lines[0], `"permission_mode":"plan"`) {
				t.Errorf("first line is not the init event: %s", lines[0])
			}
			if n := strings.Count(out.String(), `"type":"result"`); n != tc.results {
				t.Errorf("%d result lines, want %d:\n%s", n, tc.results, out.String())
			}
			if tc.errKind == "input" && !strings.Contains(out.String(), "input line: not a JSON object") {
				t.Errorf("bad line not reported:\n%s", out.String())
			}
		})
	}
}

// A read error ends the conversation with that error.
func TestConverseReadError(t *testing.T) {
	w := New(Options{Format: FormatStreamJSON, Out: io.Discard})
	boom := errors.New("boom")
	_, err := w.Converse(context.Background(), &fakeSession{}, iotest.ErrReader(boom), "")
	if !errors.Is(err, boom) {
		t.Errorf("err %v, want boom", err)
	}
}

// Run announces the session, runs the one turn and writes its result.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	s := &fakeSession{}
	res := New(Options{Format: FormatJSON, Out: &out}).Run(context.Background(), s, "hi")
	if res.Text != "re: hi" || strings.Join(s.prompts, "|") != "hi" || !s.prepared {
		t.Fatalf("result %+v, prompts %q", res, s.prompts)
	}
	var obj map[string]any
	if err := json.Unmarshal(out.Bytes(), &obj); err != nil || obj["result"] != "re: hi" {
		t.Errorf("stdout %q (%v)", out.String(), err)
	}
}
