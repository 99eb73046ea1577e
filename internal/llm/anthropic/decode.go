package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
	"github.com/hew-dev/hew/internal/llm/sse"
)

type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
}

// merge takes every field the server sent; later events refine earlier ones.
func (w *wireUsage) merge(u *llm.Usage) {
	if w == nil {
		return
	}
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	set(&u.InputTokens, w.InputTokens)
	set(&u.OutputTokens, w.OutputTokens)
	set(&u.CacheReadTokens, w.CacheReadInputTokens)
	set(&u.CacheWriteTokens, w.CacheCreationInputTokens)
}

// streamEvent is the union of every streaming event's fields.
type streamEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Model string     `json:"model"`
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	Index        int        `json:"index"`
	ContentBlock *wireBlock `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type blockAcc struct {
	block llm.Block
	text  strings.Builder // text or thinking, joined at the end
	args  strings.Builder
	known bool // a block type hew keeps
	bad   bool // tool input did not parse
}

// decoder turns Messages API stream events into neutral events and a response.
type decoder struct {
	emit   func(llm.Event)
	blocks map[int]*blockAcc
	resp   llm.Response
	stop   string
	done   bool
}

func newDecoder(emit func(llm.Event)) *decoder {
	if emit == nil {
		emit = func(llm.Event) {}
	}
	return &decoder{emit: emit, blocks: map[int]*blockAcc{}}
}

// errMalformed prefixes every complaint about the stream's shape.
var errMalformed = errors.New("anthropic: malformed stream")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// decodeStream reads a whole SSE body. It returns a retryable error for a
// stream that ends before message_stop or carries an overload error event.
// tick runs before each event; its error (cancellation) stops decoding.
func decodeStream(body io.Reader, emit func(llm.Event), tick func() error) (*llm.Response, error) {
	d := newDecoder(emit)
	rd := sse.NewReader(body, 0)
	for {
		typ, data, err := rd.NextRaw()
		if err != nil {
			if errors.Is(err, sse.ErrLineTooLong) {
				return nil, malformed("%v", err)
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, retry.Cut("message_stop", err)
			}
			return nil, err
		}
		if tick != nil {
			if err := tick(); err != nil {
				return nil, err // cancelled: emit nothing more
			}
		}
		if err := d.event(typ, data); err != nil {
			return nil, err
		}
		if d.done {
			return d.finish()
		}
	}
}

func (d *decoder) event(typ string, data []byte) error {
	var e streamEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return malformed("event %q: data is not JSON: %.80q", typ, data)
	}
	if e.Type == "" {
		e.Type = typ
	}
	switch e.Type {
	case "message_start":
		if e.Message != nil {
			d.resp.Model = e.Message.Model
			e.Message.Usage.merge(&d.resp.Usage)
		}
	case "content_block_start":
		if e.ContentBlock == nil {
			return malformed("content_block_start %d without content_block", e.Index)
		}
		if _, dup := d.blocks[e.Index]; dup {
			return malformed("content block %d started twice", e.Index)
		}
		d.start(e.Index, e.ContentBlock)
	case "content_block_delta":
		b, ok := d.blocks[e.Index]
		if !ok {
			return malformed("content_block_delta for unknown block %d", e.Index)
		}
		d.delta(e.Index, b, e.Delta.Type, e.Delta.Text, e.Delta.Thinking, e.Delta.Signature, e.Delta.PartialJSON)
	case "content_block_stop":
		b, ok := d.blocks[e.Index]
		if !ok {
			return malformed("content_block_stop for unknown block %d", e.Index)
		}
		d.stopBlock(e.Index, b)
	case "message_delta":
		if e.Delta.StopReason != "" {
			d.stop = e.Delta.StopReason
		}
		e.Usage.merge(&d.resp.Usage)
	case "message_stop":
		d.done = true
	case "error":
		if e.Error == nil {
			return retry.StreamError("api_error", "error event without details")
		}
		return retry.StreamError(e.Error.Type, e.Error.Message)
	case "ping":
	default:
		// Unknown event types are skipped, as the API documents.
	}
	return nil
}

func (d *decoder) start(i int, cb *wireBlock) {
	acc := &blockAcc{known: true}
	switch cb.Type {
	case "text":
		acc.block = llm.Block{Type: llm.BlockText, Text: cb.Text}
	case "thinking":
		acc.block = llm.Block{Type: llm.BlockThinking, Signature: cb.Signature}
		if cb.Thinking != nil {
			acc.block.Text = *cb.Thinking
		}
	case "redacted_thinking":
		acc.block = llm.Block{Type: llm.BlockRedactedThinking, Data: cb.Data}
	case "tool_use":
		acc.block = llm.Block{Type: llm.BlockToolUse, ID: cb.ID, Name: cb.Name}
		if in := strings.TrimSpace(string(cb.Input)); in != "" && in != "{}" && in != "null" {
			acc.args.WriteString(in) // input sent whole in the start event
		}
		start := llm.Block{Type: llm.BlockToolUse, ID: cb.ID, Name: cb.Name}
		d.emit(llm.Event{Type: llm.EvToolStart, Index: i, Block: &start})
	default:
		acc.known = false
	}
	d.blocks[i] = acc
}

func (d *decoder) delta(i int, b *blockAcc, typ, text, thinking, sig, partial string) {
	switch typ {
	case "text_delta":
		b.text.WriteString(text)
		d.emit(llm.Event{Type: llm.EvTextDelta, Index: i, Text: text})
	case "thinking_delta":
		b.text.WriteString(thinking)
		d.emit(llm.Event{Type: llm.EvThinkingDelta, Index: i, Text: thinking})
	case "signature_delta":
		b.block.Signature += sig
	case "input_json_delta":
		b.args.WriteString(partial)
		if partial != "" {
			d.emit(llm.Event{Type: llm.EvToolDelta, Index: i, Text: partial})
		}
	}
}

func (d *decoder) stopBlock(i int, b *blockAcc) {
	if b.block.Type != llm.BlockToolUse {
		return
	}
	in := strings.TrimSpace(b.args.String())
	if in == "" {
		in = "{}"
	}
	if !json.Valid([]byte(in)) || in[0] != '{' {
		b.bad = true // judged at the end: truncation or a broken stream
		return
	}
	b.block.Input = json.RawMessage(in)
	done := b.block
	d.emit(llm.Event{Type: llm.EvToolDone, Index: i, Block: &done})
}

var stopReasons = map[string]llm.StopReason{
	"end_turn":                      llm.StopEndTurn,
	"stop_sequence":                 llm.StopEndTurn,
	"tool_use":                      llm.StopToolUse,
	"max_tokens":                    llm.StopMaxTokens,
	"model_context_window_exceeded": llm.StopMaxTokens,
}

func (d *decoder) finish() (*llm.Response, error) {
	idx := make([]int, 0, len(d.blocks))
	for i := range d.blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	stop, ok := stopReasons[d.stop]
	if !ok {
		stop = llm.StopOther
	}
	if d.stop == "" { // some compatible servers send no message_delta
		stop = llm.StopEndTurn
		for _, b := range d.blocks {
			if b.block.Type == llm.BlockToolUse {
				stop = llm.StopToolUse
			}
		}
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	for _, i := range idx {
		b := d.blocks[i]
		if !b.known {
			continue
		}
		if b.bad {
			if stop == llm.StopMaxTokens {
				continue // cut by the output limit: never executed, the loop retries
			}
			return nil, malformed("tool call %s (%s): input is not a JSON object: %.80q", b.block.ID, b.block.Name, b.args.String())
		}
		if b.text.Len() > 0 {
			b.block.Text += b.text.String()
		}
		if b.block.Type == llm.BlockToolUse && b.block.Input == nil {
			return nil, malformed("tool call %s (%s) never finished (no content_block_stop)", b.block.ID, b.block.Name)
		}
		msg.Content = append(msg.Content, b.block)
	}
	if stop == llm.StopToolUse && len(msg.ToolUses()) == 0 {
		stop = llm.StopEndTurn
	}
	d.resp.Message = msg
	d.resp.StopReason = stop
	u := d.resp.Usage
	d.emit(llm.Event{Type: llm.EvUsage, Usage: &u})
	return &d.resp, nil
}
