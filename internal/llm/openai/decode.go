package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
	"github.com/hew-dev/hew/internal/llm/sse"
)

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"` // DeepSeek
}

// neutral maps Chat Completions usage onto hew's: cached prompt tokens are
// counted as cache reads and not again as input.
func (w *wireUsage) neutral() llm.Usage {
	cached := w.PromptCacheHitTokens
	if w.PromptTokensDetails != nil && w.PromptTokensDetails.CachedTokens > 0 {
		cached = w.PromptTokensDetails.CachedTokens
	}
	cached = min(cached, w.PromptTokens)
	return llm.Usage{InputTokens: w.PromptTokens - cached, OutputTokens: w.CompletionTokens, CacheReadTokens: cached}
}

type wireDelta struct {
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content"`
	Reasoning        *string `json:"reasoning"`
	ReasoningDetails []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Summary string `json:"summary"`
	} `json:"reasoning_details"`
	ToolCalls []wireToolCall `json:"tool_calls"`
}

// reasoning picks one reasoning field per chunk: servers that send several
// (OpenRouter) repeat the same text in each.
func (d *wireDelta) reasoning() string {
	switch {
	case d.ReasoningContent != nil && *d.ReasoningContent != "":
		return *d.ReasoningContent
	case d.Reasoning != nil && *d.Reasoning != "":
		return *d.Reasoning
	}
	var s strings.Builder
	for _, r := range d.ReasoningDetails {
		if r.Text != "" {
			s.WriteString(r.Text)
		} else {
			s.WriteString(r.Summary)
		}
	}
	return s.String()
}

type wireError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

type wireChunk struct {
	Choices []struct {
		Index        int        `json:"index"`
		Delta        *wireDelta `json:"delta"`
		Message      *wireDelta `json:"message"`
		FinishReason *string    `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
	Model string          `json:"model"`
}

// errMalformed prefixes every complaint about the stream's shape.
var errMalformed = errors.New("openai: malformed stream")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// errorFromBody classifies an error object sent in a data line or body.
func errorFromBody(raw json.RawMessage, status int) error {
	var e wireError
	if json.Unmarshal(raw, &e) != nil {
		var s string
		_ = json.Unmarshal(raw, &s)
		e.Message = s
	}
	code := strings.Trim(string(e.Code), `"`)
	if n, err := strconv.Atoi(code); err == nil && retry.RetryableStatus(n) {
		return retry.Retryable(&llm.APIError{Status: n, Type: e.Type, Message: e.Message}, 0)
	}
	typ := e.Type
	if typ == "" {
		typ = code
	}
	if retry.RetryableErrorType(typ) || retry.RetryableErrorType(code) {
		return retry.Retryable(&llm.APIError{Status: status, Type: typ, Message: e.Message}, 0)
	}
	return &llm.APIError{Status: status, Type: typ, Message: e.Message}
}

// decodeStream reads a whole Chat Completions SSE body. tick runs before
// each chunk; its error (cancellation) stops decoding.
func decodeStream(body io.Reader, p Profile, emit func(llm.Event), tick func() error) (*llm.Response, error) {
	d := newDecoder(p, emit)
	rd := sse.NewReader(body, 0)
	for {
		_, data, err := rd.NextRaw()
		if err != nil {
			if errors.Is(err, sse.ErrLineTooLong) {
				return nil, malformed("%v", err)
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				if d.finish != nil && errors.Is(err, io.EOF) {
					return d.end() // finished, only [DONE] missing
				}
				return nil, retry.Cut("[DONE]", err)
			}
			return nil, err
		}
		if tick != nil {
			if err := tick(); err != nil {
				return nil, err // cancelled: emit nothing more
			}
		}
		if string(data) == "[DONE]" {
			return d.end()
		}
		if err := d.chunk(data); err != nil {
			return nil, err
		}
	}
}

// decodeJSON reads a non-streaming completion (some servers ignore
// stream:true) through the same assembly path.
func decodeJSON(body io.Reader, p Profile, emit func(llm.Event)) (*llm.Response, error) {
	data, err := io.ReadAll(io.LimitReader(body, 64<<20))
	if err != nil {
		return nil, err
	}
	d := newDecoder(p, emit)
	if err := d.chunk(data); err != nil {
		return nil, err
	}
	return d.end()
}

func (d *decoder) chunk(data []byte) error {
	var c wireChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return malformed("data line is not a JSON chunk: %.120q", data)
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return errorFromBody(c.Error, 200)
	}
	if c.Model != "" {
		d.resp.Model = c.Model
	}
	if c.Usage != nil {
		if u := c.Usage.neutral(); u.Total() > 0 {
			d.usage = u // the last non-zero usage wins
		}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		delta := ch.Delta
		if delta == nil {
			delta = ch.Message
		}
		if delta != nil {
			if err := d.delta(delta); err != nil {
				return err
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			f := *ch.FinishReason
			d.finish = &f
		}
	}
	return nil
}

func (d *decoder) delta(dl *wireDelta) error {
	if r := dl.reasoning(); r != "" {
		d.addThinking(r)
	}
	if dl.Content != nil && *dl.Content != "" {
		th, tx := d.think.feed(*dl.Content)
		d.addThinking(th)
		d.addText(tx)
	}
	for _, tc := range dl.ToolCalls {
		if err := d.toolDelta(tc); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) addThinking(s string) {
	if s == "" {
		return
	}
	if d.thinkIdx < 0 {
		d.thinkIdx = d.nextIdx()
	}
	d.thinking.WriteString(s)
	d.emit(llm.Event{Type: llm.EvThinkingDelta, Index: d.thinkIdx, Text: s})
}

func (d *decoder) addText(s string) {
	if s == "" {
		return
	}
	if d.textIdx < 0 {
		d.textIdx = d.nextIdx()
	}
	d.text.WriteString(s)
	d.emit(llm.Event{Type: llm.EvTextDelta, Index: d.textIdx, Text: s})
}

func (d *decoder) nextIdx() int {
	d.blocks++
	return d.blocks - 1
}

// end assembles the response once the stream is complete.
func (d *decoder) end() (*llm.Response, error) {
	th, tx := d.think.flush()
	d.addThinking(th)
	d.addText(tx)
	finish := ""
	if d.finish != nil {
		finish = *d.finish
	}
	truncated := finish == "length"
	type indexed struct {
		idx int
		b   llm.Block
	}
	var blocks []indexed
	if d.thinkIdx >= 0 {
		blocks = append(blocks, indexed{d.thinkIdx, llm.Block{Type: llm.BlockThinking, Text: d.thinking.String()}})
	}
	if d.textIdx >= 0 {
		blocks = append(blocks, indexed{d.textIdx, llm.Block{Type: llm.BlockText, Text: d.text.String()}})
	}
	calls := 0
	for _, c := range d.calls {
		if !c.done {
			if err := d.complete(c, truncated); err != nil {
				return nil, err
			}
		}
		if c.bad {
			continue // truncated by the output limit: never executed
		}
		blocks = append(blocks, indexed{c.idx, c.block()})
		calls++
	}
	// Block indices follow first appearance; keep that order.
	for i := 1; i < len(blocks); i++ {
		for j := i; j > 0 && blocks[j].idx < blocks[j-1].idx; j-- {
			blocks[j], blocks[j-1] = blocks[j-1], blocks[j]
		}
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	for _, b := range blocks {
		msg.Content = append(msg.Content, b.b)
	}
	switch {
	case truncated:
		d.resp.StopReason = llm.StopMaxTokens
	case calls > 0: // the calls decide, not finish_reason
		d.resp.StopReason = llm.StopToolUse
	case finish == "" || finish == "stop" || finish == "tool_calls" || finish == "function_call" || finish == "eos":
		d.resp.StopReason = llm.StopEndTurn
	default:
		d.resp.StopReason = llm.StopOther
	}
	d.resp.Message = msg
	d.resp.Usage = d.usage
	u := d.usage
	d.emit(llm.Event{Type: llm.EvUsage, Usage: &u})
	return &d.resp, nil
}

// finalArgs normalises a call's arguments: empty means {}, a leading "{}"
// before the real object is dropped, a JSON string holding an object is
// unwrapped. ok is false when the result is not a JSON object.
func finalArgs(raw string) (json.RawMessage, bool) {
	s := strings.TrimSpace(raw)
	if s == "" || s == "null" || s == `""` {
		return json.RawMessage("{}"), true
	}
	if strings.HasPrefix(s, "{}") {
		if rest := strings.TrimSpace(s[2:]); rest != "" {
			s = rest
		}
	}
	if !json.Valid([]byte(s)) {
		return nil, false
	}
	if s[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(s), &inner) == nil {
			return finalArgs(inner)
		}
	}
	if s[0] != '{' {
		return nil, false
	}
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(s)) != nil {
		return nil, false
	}
	return buf.Bytes(), true
}
