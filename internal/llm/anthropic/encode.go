package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

type wireText struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// wireBlock is a content block as the Messages API spells it.
type wireBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      json.RawMessage `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	ToolName     string          `json:"tool_name,omitempty"` // of a tool_reference inside a tool_result
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// encOpts are the choices an encoding depends on besides the request.
type encOpts struct {
	// replayUnsigned sends thinking without a signature back
	// (Anthropic-compatible servers of other vendors want their reasoning
	// returned; Anthropic itself rejects it).
	replayUnsigned bool
	// native loads deferred tools natively: Request.DeferredTools go out
	// with defer_loading and tool results' ToolRefs as tool_reference blocks.
	native bool
	// refs are the names a tool_reference may name (the deferred tools of
	// a native request; nil otherwise): set by encodeRequestCached.
	refs map[string]bool
	// refsKey tells encodings with different refs apart in the cache.
	refsKey uint64
}

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type wireRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    []wireText      `json:"system,omitempty"`
	Messages  json.RawMessage `json:"messages"` // null here; spliceMessages puts them in
	Tools     []wireTool      `json:"tools,omitempty"`
	Stream    bool            `json:"stream"`
	Thinking  *wireThinking   `json:"thinking,omitempty"`
}

// maxSystemBreakpoints leaves room for the tools and rolling breakpoints
// inside Anthropic's limit of four cache_control markers.
const maxSystemBreakpoints = 2

// minThinkingBudget is the smallest budget the API accepts.
const minThinkingBudget = 1024

// maxTokens picks the output limit: the request's, else the model's (capped).
func maxTokens(req *llm.Request) int {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	return min(llm.LookupModel(req.Model).MaxOutput, 32000)
}

// encodeRequest builds the wire request. Everything is a fresh copy, so the
// cache markers never reach the stored history.
func encodeRequest(req *llm.Request, stream bool, opts encOpts) ([]byte, error) {
	body, _, _, err := encodeRequestCached(req, stream, opts, nil)
	return body, err
}

// encodeRequestCached is encodeRequest taking the encoding of unmarked
// messages from cache (nil: encode everything), and fingerprints what it
// encoded. native reports whether the body loads deferred tools natively
// (it then needs the ToolSearchBeta header): asked for, with deferred
// tools and at least one tool sent in full, as the API requires.
func encodeRequestCached(req *llm.Request, stream bool, opts encOpts, cache *msgCache) (body []byte, print *llm.WirePrint, native bool, err error) {
	print = &llm.WirePrint{}
	opts.refs, opts.refsKey = nil, 0
	tools := req.Tools
	var deferred []llm.ToolSpec
	if opts.native && len(req.DeferredTools) > 0 {
		// A loaded tool no result in these messages references (loaded
		// without tool_search, or its reference compacted away) would be
		// invisible deferred: it goes out in full instead.
		referenced := map[string]bool{}
		for _, m := range req.Messages {
			for _, b := range m.Content {
				for _, n := range b.ToolRefs {
					referenced[n] = true
				}
			}
		}
		isDeferred := make(map[string]bool, len(req.DeferredTools))
		for _, t := range req.DeferredTools {
			isDeferred[t.Name] = true
		}
		refs := map[string]bool{}
		var full []llm.ToolSpec
		loadedInFull := map[string]bool{}
		for _, t := range req.Tools {
			switch {
			case !isDeferred[t.Name]:
				full = append(full, t)
			case !referenced[t.Name]:
				full = append(full, t)
				loadedInFull[t.Name] = true
			}
		}
		for _, t := range req.DeferredTools {
			if !loadedInFull[t.Name] {
				deferred = append(deferred, t)
				refs[t.Name] = true
			}
		}
		if len(full) == 0 || len(deferred) == 0 {
			deferred = nil
		} else {
			native, tools = true, full
			opts.refs = refs
			h := fnv.New64a()
			for _, t := range deferred {
				h.Write([]byte(t.Name))
				h.Write([]byte{0})
			}
			opts.refsKey = h.Sum64() | 1
		}
	}
	w := wireRequest{Model: req.Model, MaxTokens: maxTokens(req), Stream: stream}
	marks := 0
	msgMarks := len(messageBreakpoints(req.Messages))
	sysMarks := min(maxSystemBreakpoints, maxBreakpoints-msgMarks-1) // one for the tools
	for _, s := range llm.TaggedSystem(req) {
		if s.Text == "" {
			continue
		}
		t := wireText{Type: "text", Text: s.Text}
		print.System = append(print.System, hashBytes([]byte(s.Text)))
		if s.Cache && marks < sysMarks {
			t.CacheControl = ephemeral
			marks++
		}
		w.System = append(w.System, t)
	}
	for k, t := range append(slices.Clip(tools), deferred...) {
		schema := t.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		wt := wireTool{Name: t.Name, Description: t.Description, InputSchema: schema, DeferLoading: k >= len(tools)}
		enc, _ := json.Marshal(wt)
		print.Tools = append(print.Tools, llm.ToolPrint{Name: t.Name, Hash: hashBytes(enc)})
		w.Tools = append(w.Tools, wt)
	}
	// The tools' breakpoint goes on the last one sent in full: deferred
	// definitions are not part of the prompt until referenced.
	if n := len(tools); n > 0 {
		w.Tools[n-1].CacheControl = ephemeral
	}
	marked := messageBreakpoints(req.Messages)
	msgs := make([][]byte, len(req.Messages))
	gen := cache.begin()
	for i, m := range req.Messages {
		mark := slices.Contains(marked, i)
		plain, hash := cache.get(m, opts, gen)
		var wm wireMessage
		if plain == nil || mark {
			wm = encodeMessage(m, opts)
		}
		if plain == nil {
			enc, err := json.Marshal(wm)
			if err != nil {
				return nil, nil, false, fmt.Errorf("anthropic: encode message %d: %w", i, err)
			}
			plain, hash = enc, hashBytes(enc)
			cache.put(m, opts, plain, hash, gen)
		}
		print.Messages = append(print.Messages, hash)
		msgs[i] = plain
		if mark {
			markMessage(wm)
			enc, err := json.Marshal(wm)
			if err != nil {
				return nil, nil, false, fmt.Errorf("anthropic: encode message %d: %w", i, err)
			}
			msgs[i] = enc
		}
	}
	cache.end(gen, len(req.Messages))
	if req.Thinking && llm.LookupModel(req.Model).Thinking {
		budget := max(minThinkingBudget, min(w.MaxTokens/2, 32000))
		if budget < w.MaxTokens {
			w.Thinking = &wireThinking{Type: "enabled", BudgetTokens: budget}
		}
	}
	body, err = json.Marshal(w)
	if err != nil {
		return nil, nil, false, fmt.Errorf("anthropic: encode request: %w", err)
	}
	return spliceMessages(body, msgs), print, native, nil
}

// hashBytes is FNV-1a, enough to tell changed bytes from unchanged.
func hashBytes(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// encodeMessage is one message in the wire format, without cache markers.
func encodeMessage(m llm.Message, opts encOpts) wireMessage {
	wm := wireMessage{Role: string(m.Role)}
	for _, b := range m.Content {
		if wb, ok := encodeBlock(b, opts); ok {
			wm.Content = append(wm.Content, wb)
		}
	}
	if len(wm.Content) == 0 {
		// Only blocks Anthropic cannot take (e.g. another vendor's
		// unsigned reasoning): keep the turn order with a placeholder.
		wm.Content = []wireBlock{{Type: "text", Text: "(no content)"}}
	}
	return wm
}

// messagesNull is where the encoded request holds the messages: the key
// with its quotes unescaped cannot occur inside any JSON string before it.
var messagesNull = []byte(`"messages":null`)

// spliceMessages puts the encoded messages into the request body.
func spliceMessages(body []byte, msgs [][]byte) []byte {
	i := bytes.Index(body, messagesNull)
	n := len(body) + 2
	for _, m := range msgs {
		n += len(m) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, body[:i]...)
	out = append(out, `"messages":[`...)
	for k, m := range msgs {
		if k > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	out = append(out, ']')
	return append(out, body[i+len(messagesNull):]...)
}

// maxBreakpoints is Anthropic's limit of cache_control markers per request.
const maxBreakpoints = 4

// messageBreakpoints are the messages that get a rolling cache breakpoint:
// the last one, and the one that was last in the previous request (the
// message before the latest answer). The previous request wrote the cache
// at that message, so this request reads it there exactly; with only the
// new breakpoint, an answer with many parallel calls puts it more than the
// 20 blocks Anthropic looks back past the cached one, and the whole
// conversation is written again.
func messageBreakpoints(msgs []llm.Message) []int {
	n := len(msgs)
	if n == 0 {
		return nil
	}
	out := []int{n - 1}
	for i := n - 2; i >= 1; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			if msgs[i-1].Role == llm.RoleUser {
				out = append(out, i-1)
			}
			break
		}
	}
	return out
}

// markMessage sets a cache breakpoint on the last block of a message that
// may carry one (not thinking blocks).
func markMessage(m wireMessage) {
	c := m.Content
	for i := len(c) - 1; i >= 0; i-- {
		if c[i].Type != "thinking" && c[i].Type != "redacted_thinking" {
			c[i].CacheControl = ephemeral
			return
		}
	}
}

// safeID maps a tool call id from any provider onto ^[a-zA-Z0-9_-]+$, the
// only form Anthropic accepts, the same way for tool_use and tool_result.
func safeID(id string) string {
	ok := id != ""
	for _, r := range id {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			ok = false
			break
		}
	}
	if ok {
		return id
	}
	var b strings.Builder
	for _, r := range id {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "_%x_", r)
		}
	}
	if b.Len() == 0 {
		return "toolu_empty"
	}
	return b.String()
}

func encodeBlock(b llm.Block, opts encOpts) (wireBlock, bool) {
	replayUnsigned := opts.replayUnsigned
	switch b.Type {
	case llm.BlockText:
		if strings.TrimSpace(b.Text) == "" {
			return wireBlock{}, false // the API rejects empty text blocks
		}
		return wireBlock{Type: "text", Text: b.Text}, true
	case llm.BlockThinking:
		if b.Signature == "" && !replayUnsigned {
			return wireBlock{}, false // unsigned reasoning from another vendor
		}
		t := b.Text
		return wireBlock{Type: "thinking", Thinking: &t, Signature: b.Signature}, true
	case llm.BlockRedactedThinking:
		return wireBlock{Type: "redacted_thinking", Data: b.Data}, true
	case llm.BlockToolUse:
		in := b.Input
		if len(bytes.TrimSpace(in)) == 0 || string(in) == "null" {
			in = json.RawMessage("{}")
		}
		return wireBlock{Type: "tool_use", ID: safeID(b.WireCallID()), Name: b.Name, Input: in}, true
	case llm.BlockToolResult:
		content, _ := json.Marshal(b.Content)
		if parts := toolRefs(b, opts.refs); len(parts) > 0 {
			if strings.TrimSpace(b.Content) != "" {
				parts = append([]wireBlock{{Type: "text", Text: b.Content}}, parts...)
			}
			content, _ = json.Marshal(parts)
		}
		return wireBlock{Type: "tool_result", ToolUseID: safeID(b.WireCallID()), Content: content, IsError: b.IsError}, true
	case llm.BlockImage:
		return wireBlock{Type: "image", Source: &imageSource{Type: "base64", MediaType: b.MediaType, Data: b.Data}}, true
	}
	return wireBlock{}, false
}

// toolRefs are the tool_reference blocks of a tool result: one per name
// it loads that the request sends deferred (the API refuses a reference
// to anything else), none when the request loads nothing natively.
func toolRefs(b llm.Block, refs map[string]bool) []wireBlock {
	var out []wireBlock
	for _, n := range b.ToolRefs {
		if refs[n] {
			out = append(out, wireBlock{Type: "tool_reference", ToolName: n})
		}
	}
	return out
}

// ParseRequest decodes a Messages API request body into neutral form. The
// mock server uses it to see requests as hew meant them.
func ParseRequest(body []byte) (req *llm.Request, stream bool, err error) {
	var w struct {
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools    []wireTool      `json:"tools"`
		Stream   bool            `json:"stream"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, false, fmt.Errorf("request body is not valid JSON: %w", err)
	}
	req = &llm.Request{Model: w.Model, MaxTokens: w.MaxTokens, Thinking: len(w.Thinking) > 0 && string(w.Thinking) != "null"}
	if len(w.System) > 0 {
		var s string
		if json.Unmarshal(w.System, &s) == nil {
			req.System = []llm.SystemBlock{{Text: s}}
		} else {
			var blocks []wireText
			if err := json.Unmarshal(w.System, &blocks); err != nil {
				return nil, false, fmt.Errorf("system: %w", err)
			}
			for _, b := range blocks {
				req.System = append(req.System, llm.SystemBlock{Text: b.Text, Cache: b.CacheControl != nil})
			}
		}
	}
	for _, t := range w.Tools {
		spec := llm.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if t.DeferLoading { // sent deferred: loadable by reference, not callable yet
			req.DeferredTools = append(req.DeferredTools, spec)
		} else {
			req.Tools = append(req.Tools, spec)
		}
	}
	for i, m := range w.Messages {
		msg := llm.Message{Role: llm.Role(m.Role)}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Content = []llm.Block{{Type: llm.BlockText, Text: s}}
		} else {
			var blocks []wireBlock
			if err := json.Unmarshal(m.Content, &blocks); err != nil {
				return nil, false, fmt.Errorf("messages[%d].content: %w", i, err)
			}
			for _, b := range blocks {
				msg.Content = append(msg.Content, decodeBlock(b))
			}
		}
		req.Messages = append(req.Messages, msg)
	}
	req.Purpose = llm.DetectPurpose(req)
	return req, w.Stream, nil
}

func decodeBlock(b wireBlock) llm.Block {
	switch b.Type {
	case "thinking":
		t := ""
		if b.Thinking != nil {
			t = *b.Thinking
		}
		return llm.Block{Type: llm.BlockThinking, Text: t, Signature: b.Signature}
	case "tool_use":
		return llm.Block{Type: llm.BlockToolUse, ID: b.ID, Name: b.Name, Input: b.Input}
	case "tool_result":
		var s string
		if json.Unmarshal(b.Content, &s) != nil {
			var parts []wireBlock
			_ = json.Unmarshal(b.Content, &parts)
			var refs []string
			for _, p := range parts {
				s += p.Text
				if p.Type == "tool_reference" {
					refs = append(refs, p.ToolName)
				}
			}
			return llm.Block{Type: llm.BlockToolResult, ID: b.ToolUseID, Content: s, IsError: b.IsError, ToolRefs: refs}
		}
		return llm.Block{Type: llm.BlockToolResult, ID: b.ToolUseID, Content: s, IsError: b.IsError}
	case "redacted_thinking":
		return llm.Block{Type: llm.BlockRedactedThinking, Data: b.Data}
	case "image":
		if b.Source != nil {
			return llm.Block{Type: llm.BlockImage, MediaType: b.Source.MediaType, Data: b.Source.Data}
		}
	}
	return llm.Block{Type: llm.BlockType(b.Type), Text: b.Text}
}
