package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/anthropic"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/retry"
	"github.com/hew-dev/hew/internal/llm/sse"
)

var (
	errCut     = errors.New("cut")
	errStopped = errors.New("stream error sent")
)

// streamer writes SSE chunks and applies the plan's chunk-level faults.
type streamer struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	ctx    context.Context
	pl     mock.Plan
	chunks int
	// errEvent writes the protocol's in-stream error.
	errEvent func(typ, msg string) (event, data string)
	// onFinal runs once, just before the stream's terminator is written: the
	// turn counts as delivered before the client can send its next request.
	onFinal func()
}

func newStreamer(w http.ResponseWriter, r *http.Request, pl mock.Plan) *streamer {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st := &streamer{w: w, rc: http.NewResponseController(w), ctx: r.Context(), pl: pl}
	_ = st.rc.Flush()
	return st
}

func (st *streamer) send(event string, data any) error {
	if err := st.ctx.Err(); err != nil {
		return err
	}
	if st.pl.ChunkDelay > 0 {
		if err := retry.SleepContext(st.ctx, st.pl.ChunkDelay); err != nil {
			return err
		}
	}
	st.chunks++
	if f := st.pl.StreamError; f != nil && st.chunks > f.AfterChunks {
		ev, body := st.errEvent(f.Type, f.Message)
		_ = sse.Write(st.w, ev, body)
		_ = st.rc.Flush()
		return errStopped
	}
	if st.pl.CutAfter > 0 && st.chunks > st.pl.CutAfter {
		return errCut
	}
	s, ok := data.(string)
	if st.onFinal != nil && (event == "message_stop" || (ok && s == "[DONE]")) {
		st.onFinal()
		st.onFinal = nil
	}
	if !ok {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		s = string(b)
	}
	if err := sse.Write(st.w, event, s); err != nil {
		return err
	}
	return st.rc.Flush()
}

// finishStream ends a handler after a streaming error: a cut drops the
// connection with no terminator, as a failing proxy would.
func finishStream(err error) {
	if errors.Is(err, errCut) {
		panic(http.ErrAbortHandler)
	}
}

// calls returns the plan's tool calls, the last one's arguments cut in half
// when the answer stopped at the output limit.
func calls(pl mock.Plan) []llm.Block {
	out := append([]llm.Block(nil), pl.ToolCalls...)
	if pl.Stop == llm.StopMaxTokens && len(out) > 0 {
		last := &out[len(out)-1]
		last.Input = last.Input[:len(last.Input)/2]
	}
	return out
}

// argPieces splits every call's arguments for streaming.
func argPieces(cs []llm.Block, size int) [][]string {
	out := make([][]string, len(cs))
	for i, c := range cs {
		out[i] = mock.Pieces(string(c.Input), size)
	}
	return out
}

// order yields (call, piece) pairs: call by call, or round-robin.
func order(pieces [][]string, interleave bool) [][2]int {
	var out [][2]int
	if !interleave {
		for c, ps := range pieces {
			for p := range ps {
				out = append(out, [2]int{c, p})
			}
		}
		return out
	}
	for p := 0; ; p++ {
		any := false
		for c, ps := range pieces {
			if p < len(ps) {
				out = append(out, [2]int{c, p})
				any = true
			}
		}
		if !any {
			return out
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func readBody(r *http.Request) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r.Body, 256<<20))
}

// --- Anthropic -----------------------------------------------------------

var anthropicStops = map[llm.StopReason]string{llm.StopEndTurn: "end_turn", llm.StopToolUse: "tool_use", llm.StopMaxTokens: "max_tokens", llm.StopOther: "end_turn"}

func anthropicError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func anthropicUsage(u llm.Usage) map[string]any {
	return map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
		"cache_read_input_tokens": u.CacheReadTokens, "cache_creation_input_tokens": u.CacheWriteTokens}
}

func (s *Server) handleAnthropic(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	i := s.record(Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	if err != nil {
		return
	}
	req, stream, err := anthropic.ParseRequest(body)
	if err != nil {
		s.reject(w, i, 400, anthropicError("invalid_request_error", err.Error()))
		return
	}
	if v := s.check(i, req); v != "" {
		s.reject(w, i, 400, anthropicError("invalid_request_error", v))
		return
	}
	if v := checkDeferred(r.Header, req); v != "" {
		s.logf("POST %s: refused: %s", r.URL.Path, v)
		s.reject(w, i, 400, anthropicError("invalid_request_error", v))
		return
	}
	pl := s.engine.Plan(req)
	s.logf("POST %s %s", r.URL.Path, describe(req.Purpose, pl, stream))
	if v := unloadedCall(req, pl); v != "" {
		s.mu.Lock()
		s.reqs[i].Violations = append(s.reqs[i].Violations, v)
		s.mu.Unlock()
		s.logf("POST %s: %s", r.URL.Path, v)
		s.reject(w, i, 400, anthropicError("invalid_request_error", v))
		return
	}
	if f := pl.Fault; f != nil {
		for k, v := range mock.FaultHeader(f) {
			w.Header()[k] = v
		}
		s.reject(w, i, f.Status, anthropicError(mock.FaultType(f), mock.FaultMessage(f)))
		return
	}
	s.setStatus(i, 200)
	id := fmt.Sprintf("msg_mock_%d", i+1)
	cs := calls(pl)
	if !stream {
		if pl.StreamError != nil {
			s.reject(w, i, 529, anthropicError(pl.StreamError.Type, pl.StreamError.Message))
			return
		}
		if pl.CutAfter > 0 {
			panic(http.ErrAbortHandler)
		}
		var content []map[string]any
		if pl.Thinking != "" {
			content = append(content, map[string]any{"type": "thinking", "thinking": pl.Thinking, "signature": "mock-signature"})
		}
		if pl.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": pl.Text})
		}
		for _, c := range cs {
			if !json.Valid(c.Input) {
				continue // cut by max_tokens: a whole-message answer cannot carry half an object
			}
			content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Input)})
		}
		writeJSON(w, 200, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": anthropicStops[pl.Stop], "stop_sequence": nil, "usage": anthropicUsage(pl.Usage)})
		return
	}
	st := newStreamer(w, r, pl)
	st.errEvent = func(typ, msg string) (string, string) {
		b, _ := json.Marshal(anthropicError(typ, msg))
		return "error", string(b)
	}
	st.onFinal = func() { s.engine.Delivered(pl) }
	finishStream(streamAnthropic(st, id, req.Model, pl, cs))
}

func streamAnthropic(st *streamer, id, model string, pl mock.Plan, cs []llm.Block) error {
	start := pl.Usage
	start.OutputTokens = 1
	if err := st.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(start)}}); err != nil {
		return err
	}
	idx := 0
	block := func(startBlock map[string]any, deltaType, field string, text string, extra ...map[string]any) error {
		if err := st.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": startBlock}); err != nil {
			return err
		}
		for _, p := range mock.Pieces(text, pl.ChunkSize) {
			if err := st.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": deltaType, field: p}}); err != nil {
				return err
			}
		}
		for _, e := range extra {
			if err := st.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": e}); err != nil {
				return err
			}
		}
		err := st.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
		return err
	}
	if pl.Thinking != "" {
		if err := block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, "thinking_delta", "thinking", pl.Thinking,
			map[string]any{"type": "signature_delta", "signature": "mock-signature"}); err != nil {
			return err
		}
	}
	if pl.Text != "" {
		if err := block(map[string]any{"type": "text", "text": ""}, "text_delta", "text", pl.Text); err != nil {
			return err
		}
	}
	base := idx
	for k, c := range cs {
		if err := st.send("content_block_start", map[string]any{"type": "content_block_start", "index": base + k,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}}); err != nil {
			return err
		}
		if !pl.Interleave {
			if err := anthropicArgs(st, base, argPieces(cs[k:k+1], pl.ChunkSize*2), false, k); err != nil {
				return err
			}
			if err := st.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": base + k}); err != nil {
				return err
			}
		}
	}
	if pl.Interleave {
		if err := anthropicArgs(st, base, argPieces(cs, pl.ChunkSize*2), true, 0); err != nil {
			return err
		}
		for k := range cs {
			if err := st.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": base + k}); err != nil {
				return err
			}
		}
	}
	if err := st.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": anthropicStops[pl.Stop], "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": pl.Usage.OutputTokens}}); err != nil {
		return err
	}
	return st.send("message_stop", map[string]any{"type": "message_stop"})
}

func anthropicArgs(st *streamer, base int, pieces [][]string, interleave bool, offset int) error {
	for _, cp := range order(pieces, interleave) {
		if err := st.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": base + offset + cp[0],
			"delta": map[string]any{"type": "input_json_delta", "partial_json": pieces[cp[0]][cp[1]]}}); err != nil {
			return err
		}
	}
	return nil
}

// describe is the log line of one answered request.
func describe(p llm.Purpose, pl mock.Plan, stream bool) string {
	s := string(p)
	if pl.Turn > 0 {
		s += fmt.Sprintf(" turn %d", pl.Turn)
	}
	if stream {
		s += " (stream)"
	}
	switch {
	case pl.Fault != nil:
		s += fmt.Sprintf(": injected HTTP %d", pl.Fault.Status)
	case pl.CutAfter > 0:
		s += fmt.Sprintf(": connection cut after %d chunks", pl.CutAfter)
	case pl.StreamError != nil:
		s += fmt.Sprintf(": %s event after %d chunks", pl.StreamError.Type, pl.StreamError.AfterChunks)
	default:
		s += fmt.Sprintf(": %d chars of text, %d tool call(s), stop %s", len(pl.Text), len(pl.ToolCalls), pl.Stop)
	}
	return s
}

// --- shared --------------------------------------------------------------

// check validates a parsed request and records what is wrong.
func (s *Server) check(i int, req *llm.Request) string {
	v := Validate(req.Messages)
	s.mu.Lock()
	s.reqs[i].Parsed = req
	s.reqs[i].Purpose = req.Purpose
	s.reqs[i].Violations = v
	s.mu.Unlock()
	if len(v) == 0 {
		return ""
	}
	s.logf("POST %s: invalid conversation: %s", s.reqs[i].Path, strings.Join(v, "; "))
	return "invalid conversation: " + strings.Join(v, "; ")
}

func (s *Server) reject(w http.ResponseWriter, i, status int, body any) {
	s.setStatus(i, status)
	writeJSON(w, status, body)
}
