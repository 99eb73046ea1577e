package mock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

var allTools = []llm.ToolSpec{{Name: "read_file"}, {Name: "edit_file"}, {Name: "list_files"}, {Name: "grep_search"}, {Name: "run_shell"}}

type recorder struct{ events []llm.Event }

func (r *recorder) on(e llm.Event) { r.events = append(r.events, e) }

func (r *recorder) count(t llm.EventType) int {
	n := 0
	for _, e := range r.events {
		if e.Type == t {
			n++
		}
	}
	return n
}

// converse plays the agent's part: run each tool call with fake results.
func converse(t *testing.T, p llm.Provider, prompt string, result func(llm.Block) (string, bool)) ([]llm.Message, *recorder) {
	t.Helper()
	hist := []llm.Message{llm.UserText(prompt)}
	rec := &recorder{}
	for i := 0; i < 6; i++ {
		resp, err := p.Stream(context.Background(), &llm.Request{Model: "mock", Messages: hist, Tools: allTools}, rec.on)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 {
			t.Fatalf("no usage: %+v", resp.Usage)
		}
		hist = append(hist, resp.Message)
		uses := resp.Message.ToolUses()
		if len(uses) == 0 {
			return hist, rec
		}
		res := llm.Message{Role: llm.RoleUser}
		for _, u := range uses {
			c, isErr := result(u)
			res.Content = append(res.Content, llm.Block{Type: llm.BlockToolResult, ID: u.ID, Content: c, IsError: isErr})
		}
		hist = append(hist, res)
	}
	t.Fatal("conversation did not end")
	return nil, nil
}

func calls(hist []llm.Message) []string {
	var out []string
	for _, m := range hist {
		for _, u := range m.ToolUses() {
			out = append(out, u.Name+" "+string(u.Input))
		}
	}
	return out
}

func TestIntents(t *testing.T) {
	tests := []struct {
		prompt string
		calls  []string
		final  string
	}{
		{"read greeting.txt", []string{`read_file {"file_path":"greeting.txt"}`}, "read_file done"},
		{"list files", []string{`list_files {}`}, "list_files done"},
		{"search NEEDLE_MARK", []string{`grep_search {"pattern":"NEEDLE_MARK"}`}, "grep_search done"},
		{"run `go test ./...`", []string{`run_shell {"command":"go test ./..."}`}, "run_shell done"},
		{`replace "hello" with "goodbye" in greeting.txt`, []string{
			`read_file {"file_path":"greeting.txt"}`,
			`edit_file {"file_path":"greeting.txt","new_string":"goodbye","old_string":"hello"}`}, "edit_file done"},
		{"write me a poem", nil, "offline mock model"},
		{"<system-reminder>\nToday is Monday.\n</system-reminder>\n\nread notes.md\n\nKeep working until this condition holds: done", []string{`read_file {"file_path":"notes.md"}`}, "read_file done"},
	}
	for _, tc := range tests {
		t.Run(tc.prompt, func(t *testing.T) {
			hist, rec := converse(t, New(nil), tc.prompt, func(b llm.Block) (string, bool) { return "output of " + b.Name + "\nline 2", false })
			if got := calls(hist); strings.Join(got, "|") != strings.Join(tc.calls, "|") {
				t.Fatalf("calls %q, want %q", got, tc.calls)
			}
			final := hist[len(hist)-1].Text()
			if !strings.Contains(final, tc.final) {
				t.Fatalf("final text %q, want it to mention %q", final, tc.final)
			}
			if rec.count(llm.EvTextDelta) < 2 {
				t.Errorf("text came in %d deltas, want several", rec.count(llm.EvTextDelta))
			}
			if len(tc.calls) > 0 && !strings.Contains(final, "output of") {
				t.Errorf("final text does not summarise the results: %q", final)
			}
		})
	}
}

func TestReplaceStopsWhenReadFails(t *testing.T) {
	hist, _ := converse(t, New(nil), `replace "a" with "b" in missing.txt`, func(b llm.Block) (string, bool) {
		return "file not found: missing.txt", true
	})
	if got := calls(hist); len(got) != 1 || !strings.HasPrefix(got[0], "read_file") {
		t.Fatalf("calls %v: the edit must not follow a failed read", got)
	}
	if !strings.Contains(hist[len(hist)-1].Text(), "read_file failed") {
		t.Fatalf("final %q", hist[len(hist)-1].Text())
	}
}

func TestIntentToolNotOffered(t *testing.T) {
	resp, err := New(nil).Stream(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("run `ls`")}, Tools: []llm.ToolSpec{{Name: "read_file"}}}, nil)
	if err != nil || len(resp.Message.ToolUses()) != 0 || !strings.Contains(resp.Message.Text(), "run_shell") {
		t.Fatalf("%v %+v", err, resp)
	}
}

func TestScenarioProvider(t *testing.T) {
	sc, err := scenario.Parse([]byte(`{"turns":[
		{"error":{"status":529,"times":2}},
		{"text":"I'll read it.","thinking":"need the file","tool_calls":[{"name":"read_file","input":{"file_path":"greeting.txt"}}]},
		{"text":"half","cut_after_chunks":1},
		{"text":"It says hello.","usage":{"input_tokens":7,"output_tokens":3}},
		{"text":"bad","error":{"status":401,"message":"invalid x-api-key"}}
	],"side":{"compact":"short summary"}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := New(sc)
	rec := &recorder{}
	req := &llm.Request{Model: "mock", Messages: []llm.Message{llm.UserText("read greeting.txt")}}
	r1, err := p.Stream(context.Background(), req, rec.on)
	if err != nil {
		t.Fatal(err)
	}
	if rec.count(llm.EvRetry) != 2 || r1.StopReason != llm.StopToolUse {
		t.Fatalf("retries %d stop %s", rec.count(llm.EvRetry), r1.StopReason)
	}
	c := r1.Message.Content
	if len(c) != 3 || c[0].Type != llm.BlockThinking || c[2].ID != "toolu_s02_1" || string(c[2].Input) != `{"file_path":"greeting.txt"}` {
		t.Fatalf("content %+v", c)
	}
	side, err := p.Stream(context.Background(), &llm.Request{Purpose: llm.PurposeCompact, Messages: req.Messages}, nil)
	if err != nil || side.Message.Text() != "short summary" {
		t.Fatalf("side: %v %+v", err, side)
	}
	rec = &recorder{}
	r2, err := p.Stream(context.Background(), req, rec.on)
	if err != nil || r2.Message.Text() != "half" || rec.count(llm.EvRetry) != 1 {
		t.Fatalf("cut turn: %v %+v retries %d", err, r2, rec.count(llm.EvRetry))
	}
	r3, err := p.Stream(context.Background(), req, nil)
	if err != nil || r3.Usage != (llm.Usage{InputTokens: 7, OutputTokens: 3}) {
		t.Fatalf("usage override: %v %+v", err, r3)
	}
	_, err = p.Stream(context.Background(), req, nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Status != 401 || !strings.Contains(err.Error(), "invalid x-api-key") {
		t.Fatalf("401: %v", err)
	}
	if p.Remaining() != 1 {
		t.Fatalf("remaining %d", p.Remaining())
	}
}

func TestFaultPastTheEndServedOnce(t *testing.T) {
	sc, _ := scenario.Parse([]byte(`{"turns":[{"text":"one","cut_after_chunks":99},{"text":"two"}]}`))
	p := New(sc)
	for _, want := range []string{"one", "two"} {
		r, err := p.Stream(context.Background(), &llm.Request{}, nil)
		if err != nil || r.Message.Text() != want {
			t.Fatalf("want %q: %v %+v", want, err, r)
		}
	}
}

func TestCancel(t *testing.T) {
	sc, _ := scenario.Parse([]byte(`{"turns":[{"text":"` + strings.Repeat("word ", 50) + `","chunk_delay_ms":5}]}`))
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	resp, err := New(sc).Stream(ctx, &llm.Request{}, func(e llm.Event) {
		n++
		if n == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || resp != nil || n != 2 {
		t.Fatalf("err %v resp %v events %d", err, resp, n)
	}
}

func TestPieces(t *testing.T) {
	s := "héllo wörld 日本"
	ps := Pieces(s, 2)
	if strings.Join(ps, "") != s {
		t.Fatal("pieces do not rebuild the text")
	}
	for _, p := range ps {
		if !utf8.ValidString(p) {
			t.Fatalf("piece %q splits a character", p)
		}
	}
}

func TestSummaryReadsLikeAnAnswer(t *testing.T) {
	hist, _ := converse(t, New(nil), "read greeting.txt", func(b llm.Block) (string, bool) { return "     1\thello world\n     2\tbye", false })
	final := hist[len(hist)-1].Text()
	if final != "read_file done (greeting.txt), 2 line(s) of output: hello world" {
		t.Fatalf("final %q", final)
	}
}
