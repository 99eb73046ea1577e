package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/openai"
)

var openaiFinish = map[llm.StopReason]string{llm.StopEndTurn: "stop", llm.StopToolUse: "tool_calls", llm.StopMaxTokens: "length", llm.StopOther: "stop"}

func openaiError(status int, typ, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": status}}
}

func openaiUsage(u llm.Usage) map[string]any {
	prompt := u.InputTokens + u.CacheReadTokens
	return map[string]any{"prompt_tokens": prompt, "completion_tokens": u.OutputTokens, "total_tokens": prompt + u.OutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheReadTokens}}
}

func (s *Server) handleOpenAI(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	i := s.record(Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	if err != nil {
		return
	}
	req, stream, includeUsage, err := openai.ParseRequest(body)
	if err != nil {
		s.reject(w, i, 400, openaiError(400, "invalid_request_error", err.Error()))
		return
	}
	if v := s.check(i, req); v != "" {
		s.reject(w, i, 400, openaiError(400, "invalid_request_error", v))
		return
	}
	pl := s.engine.Plan(req)
	s.logf("POST %s %s", r.URL.Path, describe(req.Purpose, pl, stream))
	if f := pl.Fault; f != nil {
		for k, v := range mock.FaultHeader(f) {
			w.Header()[k] = v
		}
		s.reject(w, i, f.Status, openaiError(f.Status, mock.FaultType(f), mock.FaultMessage(f)))
		return
	}
	s.setStatus(i, 200)
	id := fmt.Sprintf("chatcmpl-mock-%d", i+1)
	cs := calls(pl)
	if !stream {
		if pl.StreamError != nil {
			s.reject(w, i, 503, openaiError(503, pl.StreamError.Type, pl.StreamError.Message))
			return
		}
		if pl.CutAfter > 0 {
			panic(http.ErrAbortHandler)
		}
		msg := map[string]any{"role": "assistant", "content": nil}
		if pl.Text != "" {
			msg["content"] = pl.Text
		}
		if pl.Thinking != "" {
			msg["reasoning_content"] = pl.Thinking
		}
		var tcs []map[string]any
		for _, c := range cs {
			tcs = append(tcs, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": string(c.Input)}})
		}
		if len(tcs) > 0 {
			msg["tool_calls"] = tcs
		}
		writeJSON(w, 200, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": openaiFinish[pl.Stop]}},
			"usage":   openaiUsage(pl.Usage)})
		return
	}
	st := newStreamer(w, r, pl)
	st.errEvent = func(typ, msg string) (string, string) {
		b, _ := json.Marshal(openaiError(529, typ, msg))
		return "", string(b)
	}
	st.onFinal = func() { s.engine.Delivered(pl) }
	finishStream(streamOpenAI(st, id, req.Model, pl, cs, includeUsage))
}

func streamOpenAI(st *streamer, id, model string, pl mock.Plan, cs []llm.Block, includeUsage bool) error {
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if err := st.send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil)); err != nil {
		return err
	}
	for _, p := range mock.Pieces(pl.Thinking, pl.ChunkSize) {
		if err := st.send("", chunk(map[string]any{"reasoning_content": p}, nil)); err != nil {
			return err
		}
	}
	for _, p := range mock.Pieces(pl.Text, pl.ChunkSize) {
		if err := st.send("", chunk(map[string]any{"content": p}, nil)); err != nil {
			return err
		}
	}
	pieces := argPieces(cs, pl.ChunkSize*2)
	started := make([]bool, len(cs))
	for _, cp := range order(pieces, pl.Interleave) {
		c, k := cs[cp[0]], cp[0]
		tc := map[string]any{"index": k, "function": map[string]any{"arguments": pieces[k][cp[1]]}}
		if !started[k] {
			started[k] = true
			tc["id"], tc["type"] = c.ID, "function"
			tc["function"] = map[string]any{"name": c.Name, "arguments": pieces[k][cp[1]]}
		}
		if err := st.send("", chunk(map[string]any{"tool_calls": []any{tc}}, nil)); err != nil {
			return err
		}
	}
	for k, c := range cs { // calls with empty arguments never got a piece
		if !started[k] {
			tc := map[string]any{"index": k, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
			if err := st.send("", chunk(map[string]any{"tool_calls": []any{tc}}, nil)); err != nil {
				return err
			}
		}
	}
	if err := st.send("", chunk(map[string]any{}, openaiFinish[pl.Stop])); err != nil {
		return err
	}
	if includeUsage {
		if err := st.send("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{}, "usage": openaiUsage(pl.Usage)}); err != nil {
			return err
		}
	}
	return st.send("", "[DONE]")
}
