// Package llm holds hew's one provider-neutral conversation model and the
// Provider interface. Wire adapters (anthropic, openai, mock) translate this
// history to and from each protocol on every request, so hew never keeps a
// second, vendor-shaped copy of the conversation.
package llm

import (
	"context"
	"encoding/json"
)

// Role is who authored a message. Tool results travel in user messages, as
// in the Anthropic protocol; the OpenAI adapter splits them into tool messages.
type Role string

// The two roles of the neutral history.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType names the kind of a content block.
type BlockType string

// Content block kinds.
const (
	BlockText             BlockType = "text"
	BlockThinking         BlockType = "thinking"
	BlockRedactedThinking BlockType = "redacted_thinking"
	BlockToolUse          BlockType = "tool_use"
	BlockToolResult       BlockType = "tool_result"
	BlockImage            BlockType = "image"
)

// Block is one piece of a message. Only the fields of its Type are set; the
// JSON form is what sessions store, so field names are stable.
type Block struct {
	Type BlockType `json:"type"`

	// Text is the text of a text or thinking block.
	Text string `json:"text,omitempty"`
	// Signature is the provider's signature of a thinking block, replayed verbatim.
	Signature string `json:"signature,omitempty"`
	// Data is the opaque payload of a redacted_thinking block, or base64 image data.
	Data string `json:"data,omitempty"`
	// MediaType is the MIME type of an image block.
	MediaType string `json:"media_type,omitempty"`

	// ID is the tool call id of a tool_use block, or the id a tool_result answers.
	ID string `json:"id,omitempty"`
	// WireID is the provider's own id when hew renamed a repeated one (some
	// servers number calls per answer: call_0 every time). ID is unique in
	// the session; the adapters send WireID, so the server sees its ids.
	WireID string `json:"wire_id,omitempty"`
	// Name is the tool name of a tool_use block.
	Name string `json:"name,omitempty"`
	// Input is the parsed JSON input of a tool_use block (always an object).
	Input json.RawMessage `json:"input,omitempty"`

	// Content is the text of a tool_result block.
	Content string `json:"content,omitempty"`
	// IsError marks a failed tool_result.
	IsError bool `json:"is_error,omitempty"`
	// ToolRefs names the deferred tools a tool_result loads (tool_search
	// select:NAME). Adapters that load definitions natively send a
	// reference per name (Anthropic tool_reference), so the tool list never
	// changes; the others ignore it, the tools having joined Request.Tools.
	ToolRefs []string `json:"tool_refs,omitempty"`
}

// Message is one turn of the conversation: a role and its blocks in order.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Text returns the concatenated text blocks of m.
func (m Message) Text() string {
	var s string
	for _, b := range m.Content {
		if b.Type == BlockText {
			s += b.Text
		}
	}
	return s
}

// ToolUses returns the tool_use blocks of m in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

// UserText makes a user message holding one text block.
func UserText(s string) Message {
	return Message{Role: RoleUser, Content: []Block{{Type: BlockText, Text: s}}}
}

// ToolSpec describes one tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// SystemBlock is one part of the system prompt. Cache marks the end of a
// stable prefix (Anthropic cache_control); other adapters join the parts.
type SystemBlock struct {
	Text  string `json:"text"`
	Cache bool   `json:"cache,omitempty"`
}

// Purpose says what a request is for. The main loop uses PurposeMain; side
// requests (summaries, evaluators, classifiers, recall) name theirs so the
// mock provider can answer each from its scenario's "side" section.
type Purpose string

// Request purposes.
const (
	PurposeMain         Purpose = "main"
	PurposeCompact      Purpose = "compact"
	PurposeGoalEval     Purpose = "goal_eval"
	PurposeClassifier   Purpose = "classifier"
	PurposeMemoryRecall Purpose = "memory_recall"
)

// Request is one model call in neutral form.
type Request struct {
	Model    string
	System   []SystemBlock
	Messages []Message
	// Tools is what the model can call now: the tools sent in full plus
	// the deferred ones already loaded, in activation order.
	Tools []ToolSpec
	// DeferredTools is every deferred tool, loaded or not, in a stable
	// order. An adapter that loads definitions natively sends these from
	// the first request marked deferred (and Tools minus these names), so
	// loading one changes no byte of the tool list; the others ignore it.
	DeferredTools []ToolSpec
	MaxTokens     int
	// Thinking asks for extended thinking / reasoning when the model supports it;
	// adapters ignore it for models that do not.
	Thinking bool
	Purpose  Purpose
}

// StopReason is why the model stopped generating, normalised across protocols.
type StopReason string

// Normalised stop reasons.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopOther     StopReason = "other"
)

// Usage is token accounting for one or more requests.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_input_tokens"`
	CacheWriteTokens int `json:"cache_creation_input_tokens"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CacheReadTokens += u2.CacheReadTokens
	u.CacheWriteTokens += u2.CacheWriteTokens
}

// Total is every token counted, as budgets see it.
func (u Usage) Total() int {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// EventType names a streaming event.
type EventType string

// Neutral stream events.
const (
	EvTextDelta     EventType = "text_delta"
	EvThinkingDelta EventType = "thinking_delta"
	// EvToolStart: a tool call began (ID and Name known).
	EvToolStart EventType = "tool_start"
	// EvToolDelta: a piece of a tool call's JSON arguments.
	EvToolDelta EventType = "tool_delta"
	// EvToolDone: a tool call's arguments are complete; Block holds the parsed call.
	EvToolDone EventType = "tool_done"
	EvUsage    EventType = "usage"
	// EvRetry: the request failed in a retryable way and is being retried;
	// everything streamed since the last request start must be discarded.
	EvRetry EventType = "retry"
	// EvNotice: the adapter changed how it talks to the server (Text says
	// what and why, e.g. native tool loading turned off after a refusal).
	EvNotice EventType = "notice"
)

// Event is one streaming event. Index is the block index within the answer.
type Event struct {
	Type  EventType
	Index int
	// Text is the delta of a text, thinking or tool argument event.
	Text string
	// Block is the tool_use block of EvToolStart (ID, Name) and EvToolDone (complete).
	Block *Block
	Usage *Usage
	// Retry details for EvRetry.
	Attempt int
	Err     error
	DelayMS int
}

// Response is a complete model answer.
type Response struct {
	Message    Message
	StopReason StopReason
	Usage      Usage
	Model      string
	// Wire fingerprints the request as the adapter encoded it (nil when
	// the adapter does not), so a cache miss can name the part whose bytes
	// really changed on the wire rather than in the neutral history.
	Wire *WirePrint
}

// WirePrint is a hash per encoded part of a request, cache markers left out
// (they move every request by design).
type WirePrint struct {
	System   []uint64
	Tools    []ToolPrint
	Messages []uint64
}

// ToolPrint is one encoded tool definition's hash.
type ToolPrint struct {
	Name string
	Hash uint64
}

// Provider is one model backend. Stream sends req, calls onEvent for every
// streaming event in order (from the calling goroutine), and returns the
// assembled answer. Retries happen inside Stream and are announced with
// EvRetry. Cancelling ctx aborts the HTTP request at once.
type Provider interface {
	Name() string
	Stream(ctx context.Context, req *Request, onEvent func(Event)) (*Response, error)
}

// NativeDeferrer is a provider that can load deferred tool definitions
// natively (Request.DeferredTools, Block.ToolRefs) for model.
type NativeDeferrer interface {
	DefersNatively(model string) bool
}

// DefersNatively reports whether p loads deferred tools natively for
// model, so a tool search need not repeat their definitions as text.
func DefersNatively(p Provider, model string) bool {
	for p != nil {
		if d, ok := p.(NativeDeferrer); ok {
			return d.DefersNatively(model)
		}
		u, ok := p.(interface{ Unwrap() Provider })
		if !ok {
			return false
		}
		p = u.Unwrap()
	}
	return false
}

// APIError is a non-retryable (or retries-exhausted) error from a model server.
type APIError struct {
	Status  int    // HTTP status, 0 for transport errors
	Type    string // the server's error type, if any
	Message string // the server's message
	Retries int    // retries made before giving up
}

func (e *APIError) Error() string {
	s := "model API error"
	if e.Status != 0 {
		s += " " + itoa(e.Status)
	}
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Retries > 0 {
		s += " (after " + itoa(e.Retries) + " retries)"
	}
	return s
}

// PromptTooLong reports whether e says the prompt exceeded the context window.
func (e *APIError) PromptTooLong() bool {
	return e.Status == 400 && containsFold(e.Message, "prompt is too long", "context length", "context_length", "too many tokens", "maximum context")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// WireCallID is the id to send for a tool_use or tool_result block.
func (b Block) WireCallID() string {
	if b.WireID != "" {
		return b.WireID
	}
	return b.ID
}

// Metered wraps a provider so the usage of every answer reaches OnUsage.
// Side requests (compaction summaries, the goal evaluator) go through one,
// so budgets, /cost and the result count them like the main loop's.
type Metered struct {
	Provider
	// OnUsage gets the request's model and the answer's usage; nil counts nothing.
	OnUsage func(model string, u Usage)
}

// Unwrap is the metered provider, for capability checks (DefersNatively).
func (m Metered) Unwrap() Provider { return m.Provider }

// Stream implements Provider and reports the answer's usage, also when the
// answer ends in an error after usage was reported.
func (m Metered) Stream(ctx context.Context, req *Request, onEvent func(Event)) (*Response, error) {
	resp, err := m.Provider.Stream(ctx, req, onEvent)
	if resp != nil && m.OnUsage != nil && resp.Usage != (Usage{}) {
		m.OnUsage(req.Model, resp.Usage)
	}
	return resp, err
}
