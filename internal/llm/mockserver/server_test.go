package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
	"github.com/hew-dev/hew/internal/llm/sse"
)

func TestSideRequestsDoNotConsumeTurns(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"text":"turn one"},{"text":"turn two"}],"side":{"compact":"the summary","goal_eval":{"ok":true,"reason":"done"}}}`)
		main1 := h.send(context.Background(), userReq("a"))
		side := userReq("summarise")
		side.Purpose = llm.PurposeCompact
		s := h.send(context.Background(), side)
		eval := userReq("judge")
		eval.System = []llm.SystemBlock{{Text: llm.PurposeTag(llm.PurposeGoalEval) + "\nJudge."}}
		g := h.send(context.Background(), eval)
		cls := userReq("classify")
		cls.Purpose = llm.PurposeClassifier
		c := h.send(context.Background(), cls)
		main2 := h.send(context.Background(), userReq("b"))
		for _, r := range []run{main1, s, g, c, main2} {
			if r.err != nil {
				t.Fatal(r.err)
			}
		}
		if main1.resp.Message.Text() != "turn one" || main2.resp.Message.Text() != "turn two" {
			t.Errorf("main turns: %q, %q", main1.resp.Message.Text(), main2.resp.Message.Text())
		}
		if s.resp.Message.Text() != "the summary" {
			t.Errorf("compact side answer %q", s.resp.Message.Text())
		}
		if g.resp.Message.Text() != `{"ok":true,"reason":"done"}` {
			t.Errorf("goal_eval side answer %q", g.resp.Message.Text())
		}
		if !strings.Contains(c.resp.Message.Text(), `"block"`) {
			t.Errorf("classifier default %q", c.resp.Message.Text())
		}
		reqs := h.srv.Requests()
		want := []llm.Purpose{llm.PurposeMain, llm.PurposeCompact, llm.PurposeGoalEval, llm.PurposeClassifier, llm.PurposeMain}
		for i, p := range want {
			if reqs[i].Purpose != p {
				t.Errorf("request %d purpose %q, want %q", i, reqs[i].Purpose, p)
			}
		}
		// Turns exhausted: a short final text.
		end := h.send(context.Background(), userReq("c"))
		if end.err != nil || !strings.Contains(end.resp.Message.Text(), "no more turns") {
			t.Errorf("after the last turn: %v %+v", end.err, end.resp)
		}
	})
}

// A full tool round trip through each encoder arrives as a valid
// conversation; a dangling call is rejected and reported.
func TestConversationValidation(t *testing.T) {
	forBoth(t, func(t *testing.T, proto protocol) {
		h := start(t, proto, `{"turns":[{"tool_calls":[{"name":"read_file","input":{"file_path":"a"}},{"name":"read_file","input":{"file_path":"b"}}]},{"text":"both read"}]}`)
		req := userReq("read a and b")
		r := h.send(context.Background(), req)
		if r.err != nil {
			t.Fatal(r.err)
		}
		hist := append(req.Messages, r.resp.Message)
		results := llm.Message{Role: llm.RoleUser}
		for _, u := range r.resp.Message.ToolUses() {
			results.Content = append(results.Content, llm.Block{Type: llm.BlockToolResult, ID: u.ID, Content: "contents of " + u.ID})
		}
		req2 := userReq("")
		req2.Messages = append(hist, results)
		r2 := h.send(context.Background(), req2)
		if r2.err != nil || r2.resp.Message.Text() != "both read" {
			t.Fatalf("second request: %v", r2.err)
		}
		if v := h.srv.Violations(); len(v) != 0 {
			t.Fatalf("valid conversation flagged: %v", v)
		}
		// Drop one result: the server must refuse, and say why.
		bad := userReq("")
		bad.Messages = append(hist, llm.Message{Role: llm.RoleUser, Content: results.Content[:1]})
		r3 := h.send(context.Background(), bad)
		var ae *llm.APIError
		if r3.err == nil || !strings.Contains(r3.err.Error(), "has no tool_result") || !asAPI(r3.err, &ae) || ae.Status != 400 {
			t.Fatalf("dangling call not rejected: %v", r3.err)
		}
		reqs := h.srv.Requests()
		if last := reqs[len(reqs)-1]; len(last.Violations) != 1 || last.Status != 400 {
			t.Fatalf("violations %v status %d", last.Violations, last.Status)
		}
		h.srv.mu.Lock()
		h.srv.reqs = h.srv.reqs[:len(h.srv.reqs)-1] // expected violation; keep cleanup check quiet
		h.srv.mu.Unlock()
	})
}

func asAPI(err error, target **llm.APIError) bool {
	e, ok := err.(*llm.APIError)
	if ok {
		*target = e
	}
	return ok
}

func TestValidate(t *testing.T) {
	use := func(id string) llm.Block {
		return llm.Block{Type: llm.BlockToolUse, ID: id, Name: "t", Input: json.RawMessage("{}")}
	}
	res := func(id string) llm.Block { return llm.Block{Type: llm.BlockToolResult, ID: id} }
	user := func(bs ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleUser, Content: bs} }
	asst := func(bs ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: bs} }
	text := llm.Block{Type: llm.BlockText, Text: "x"}
	tests := []struct {
		name string
		msgs []llm.Message
		want string
	}{
		{"valid", []llm.Message{user(text), asst(use("1"), use("2")), user(res("1"), res("2"), text)}, ""},
		{"missing result", []llm.Message{user(text), asst(use("1"), use("2")), user(res("1"))}, "tool_use 2 (t) has no tool_result"},
		{"wrong order", []llm.Message{user(text), asst(use("1"), use("2")), user(res("2"), res("1"))}, "ids must match in order"},
		{"orphan result", []llm.Message{user(res("9"))}, "answers no tool_use"},
		{"text before result", []llm.Message{user(text), asst(use("1")), user(text, res("1"))}, "comes after other content"},
		{"dangling at end", []llm.Message{user(text), asst(use("1"))}, "no tool_result"},
		{"duplicate id", []llm.Message{user(text), asst(use("1")), user(res("1")), asst(use("1")), user(res("1"))}, "used twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := strings.Join(Validate(tc.msgs), "; ")
			if tc.want == "" && v != "" || tc.want != "" && !strings.Contains(v, tc.want) {
				t.Fatalf("Validate = %q, want %q", v, tc.want)
			}
		})
	}
}

func post(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, data
}

func TestNonStreaming(t *testing.T) {
	h := start(t, protocols[0], `{"turns":[{"text":"plain","tool_calls":[{"name":"read_file","input":{"file_path":"x"}}]},{"text":"second"}]}`)
	res, data := post(t, h.srv.URL()+"/v1/messages", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	var msg struct {
		Content []struct {
			Type, Text, ID, Name string
			Input                json.RawMessage
		}
		StopReason string `json:"stop_reason"`
		Usage      struct {
			InputTokens int `json:"input_tokens"`
		}
	}
	if err := json.Unmarshal(data, &msg); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d %s %v", res.StatusCode, data, err)
	}
	if len(msg.Content) != 2 || msg.Content[0].Text != "plain" || msg.Content[1].Name != "read_file" || msg.StopReason != "tool_use" || msg.Usage.InputTokens == 0 {
		t.Fatalf("message %s", data)
	}
	res, data = post(t, h.srv.URL()+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"toolu_s01_1","type":"function","function":{"name":"read_file","arguments":"{\"file_path\":\"x\"}"}}]},
		{"role":"tool","tool_call_id":"toolu_s01_1","content":"data"}]}`)
	var cc struct {
		Choices []struct {
			Message struct {
				Content string
			}
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		}
	}
	if err := json.Unmarshal(data, &cc); err != nil || res.StatusCode != 200 || len(cc.Choices) != 1 ||
		cc.Choices[0].Message.Content != "second" || cc.Choices[0].FinishReason != "stop" || cc.Usage.PromptTokens == 0 {
		t.Fatalf("%d %s %v", res.StatusCode, data, err)
	}
	// A max_tokens turn answered whole: valid JSON, the cut call left out.
	h2 := start(t, protocols[0], `{"turns":[{"text":"cut","stop_reason":"max_tokens","tool_calls":[{"name":"write_file","input":{"content":"abcdefgh"}}]}]}`)
	res, data = post(t, h2.srv.URL()+"/v1/messages", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	if res.StatusCode != 200 || !strings.Contains(string(data), `"stop_reason":"max_tokens"`) || strings.Contains(string(data), "tool_use") {
		t.Fatalf("%d %s", res.StatusCode, data)
	}
	res, _ = post(t, h.srv.URL()+"/v1/other", `{}`)
	if res.StatusCode != 404 {
		t.Errorf("unknown path: %d", res.StatusCode)
	}
}

// The raw stream the server sends is what the real APIs send: usage only
// when asked, a final [DONE], Anthropic's event names.
func TestWireShape(t *testing.T) {
	h := start(t, protocols[1], `{"turns":[{"text":"hi"},{"text":"hi"}]}`)
	for _, includeUsage := range []bool{true, false} {
		opts := ""
		if includeUsage {
			opts = `,"stream_options":{"include_usage":true}`
		}
		_, data := post(t, h.srv.URL()+"/v1/chat/completions", `{"model":"m","stream":true`+opts+`,"messages":[{"role":"user","content":"x"}]}`)
		rd := sse.NewReader(bytes.NewReader(data), 0)
		var last, usage string
		for {
			ev, err := rd.Next()
			if err != nil {
				break
			}
			if strings.Contains(ev.Data, `"usage"`) {
				usage = ev.Data
			}
			last = ev.Data
		}
		if last != "[DONE]" || (usage != "") != includeUsage {
			t.Errorf("include_usage=%v: last %q usage chunk %q", includeUsage, last, usage)
		}
		if includeUsage && !strings.Contains(usage, `"choices":[]`) {
			t.Errorf("usage chunk must have empty choices: %s", usage)
		}
	}
}

// /model mid-session: one history, answered by one protocol and continued
// on the other, stays a valid conversation for both.
func TestSwitchProtocolMidConversation(t *testing.T) {
	h := start(t, protocols[1], `{"turns":[
		{"thinking":"look first","tool_calls":[{"id":"functions.read_file:0","name":"read_file","input":{"file_path":"a"}}]},
		{"text":"Now the other.","tool_calls":[{"name":"list_files","input":{}}]},
		{"text":"All done."}]}`)
	pol := retry.Default()
	pol.Sleep = h.waits.sleep
	providers := []llm.Provider{h.p, protocols[0].make(h.srv.URL(), pol), h.p}
	req := userReq("go")
	for i, p := range providers {
		resp, err := p.Stream(context.Background(), req, nil)
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, p.Name(), err)
		}
		req.Messages = append(req.Messages, resp.Message)
		var results []llm.Block
		for _, u := range resp.Message.ToolUses() {
			results = append(results, llm.Block{Type: llm.BlockToolResult, ID: u.ID, Content: "ok"})
		}
		if len(results) > 0 {
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: results})
		}
	}
	if got := req.Messages[len(req.Messages)-1].Text(); got != "All done." {
		t.Fatalf("last answer %q", got)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 || reqs[1].Path != "/v1/messages" || reqs[2].Path != "/v1/chat/completions" {
		t.Fatalf("paths %v", reqs)
	}
	// The Anthropic request carried the id in its allowed alphabet, matched.
	if !strings.Contains(string(reqs[1].Body), `"tool_use_id":"functions_2e_read_file_3a_0"`) {
		t.Errorf("anthropic body %s", reqs[1].Body)
	}
}
