// Package scenario reads the scripted conversations of SPEC section 7 that
// drive both the in-process mock provider and `hew mock-server`, so one file
// can exercise the agent loop offline and fault-inject a real HTTP client.
package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

// Scenario is a parsed scenario file.
type Scenario struct {
	// Path is where it was loaded from, for messages.
	Path  string
	Turns []Turn
	// Side maps a purpose (compact, goal_eval, classifier, memory_recall) to
	// the text answered to side requests of that purpose.
	Side map[string]string
}

// Turn is the answer to one main-loop request, and the faults to inject
// before or while sending it.
type Turn struct {
	Text      string     `json:"text"`
	Thinking  string     `json:"thinking"`
	ToolCalls []ToolCall `json:"tool_calls"`
	// StopReason overrides the natural one (end_turn, tool_use, max_tokens).
	StopReason string `json:"stop_reason"`
	// Error answers the first Error.Times attempts with an HTTP error. A turn
	// holding only an error is pure fault injection: once its failures are
	// spent, the same request is answered by the next turn.
	Error *Fault `json:"error"`
	// StreamError sends an error event inside a 200 stream after AfterChunks.
	StreamError *StreamFault `json:"stream_error"`
	// CutAfterChunks drops the connection after that many stream chunks, on
	// the first CutTimes attempts (default 1).
	CutAfterChunks int `json:"cut_after_chunks"`
	CutTimes       int `json:"cut_times"`
	// ChunkDelayMS sleeps between stream chunks.
	ChunkDelayMS int `json:"chunk_delay_ms"`
	// ChunkSize is the size of text and argument pieces (default 6 bytes).
	ChunkSize int `json:"chunk_size"`
	// InterleaveToolCalls sends the argument pieces of several calls interleaved.
	InterleaveToolCalls bool `json:"interleave_tool_calls"`
	// Usage overrides the estimated token counts.
	Usage *llm.Usage `json:"usage"`
}

// ToolCall is one scripted tool call. ID is generated when empty.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// Fault is an injected HTTP error.
type Fault struct {
	Status int `json:"status"`
	// RetryAfter (seconds) and RetryAfterMS set the matching headers.
	RetryAfter   float64 `json:"retry_after"`
	RetryAfterMS int     `json:"retry_after_ms"`
	Type         string  `json:"type"`
	Message      string  `json:"message"`
	// Times is how many attempts fail before the turn succeeds (default 1).
	Times int `json:"times"`
}

// StreamFault is an error event inside a 200 stream.
type StreamFault struct {
	Type        string `json:"type"`
	Message     string `json:"message"`
	AfterChunks int    `json:"after_chunks"`
	Times       int    `json:"times"`
}

// OnlyFault reports whether t carries no answer of its own.
func (t *Turn) OnlyFault() bool {
	return t.Error != nil && t.Text == "" && t.Thinking == "" && len(t.ToolCalls) == 0
}

// Load reads and checks a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	sc, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	sc.Path = path
	return sc, nil
}

var knownTurnFields = map[string]bool{
	"text": true, "thinking": true, "tool_calls": true, "stop_reason": true, "error": true,
	"stream_error": true, "cut_after_chunks": true, "cut_times": true, "chunk_delay_ms": true,
	"chunk_size": true, "interleave_tool_calls": true, "usage": true,
}

var knownSide = map[string]bool{"compact": true, "goal_eval": true, "classifier": true, "memory_recall": true}

// Parse checks a scenario and says precisely what is wrong with it, with
// the line and column in the file.
func Parse(data []byte) (*Scenario, error) {
	sc := &Scenario{Side: map[string]string{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, describeJSONError(data, err, 0) // io.EOF here: empty file
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New(`a scenario must be a JSON object with "turns" (and optionally "side")`)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, describeJSONError(data, early(err), 0)
		}
		key, _ := tok.(string)
		switch key {
		case "turns":
			if err := parseTurns(dec, data, sc); err != nil {
				return nil, err
			}
		case "side":
			var side map[string]json.RawMessage
			off := dec.InputOffset()
			if err := dec.Decode(&side); err != nil {
				return nil, fmt.Errorf("side: %w", describeJSONError(data, err, off))
			}
			for k, v := range side {
				if !knownSide[k] {
					return nil, fmt.Errorf("side: unknown purpose %q (want compact, goal_eval, classifier or memory_recall)", k)
				}
				var s string
				if err := json.Unmarshal(v, &s); err != nil {
					s = string(bytes.TrimSpace(v)) // an object answer, e.g. {"ok": true}
				}
				sc.Side[k] = s
			}
		default:
			return nil, fmt.Errorf("unknown field %q (want turns and side)", key)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, describeJSONError(data, early(err), 0)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("extra data after the scenario object")
	}
	return sc, nil
}

func parseTurns(dec *json.Decoder, data []byte, sc *Scenario) error {
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return describeJSONError(data, early(err), 0)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		l, c := lineCol(data, off)
		return fmt.Errorf("line %d col %d: turns must be an array", l, c)
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("turn %d: %w", i+1, describeJSONError(data, early(err), 0))
		}
		// The offset of this turn's first byte, for positions inside it.
		base := dec.InputOffset() - int64(len(raw))
		t, err := parseTurn(raw, data, base)
		if err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		for k := range t.ToolCalls {
			if t.ToolCalls[k].ID == "" {
				t.ToolCalls[k].ID = fmt.Sprintf("toolu_s%02d_%d", i+1, k+1)
			}
		}
		sc.Turns = append(sc.Turns, t)
	}
	_, err = dec.Token() // ]
	if err != nil {
		return describeJSONError(data, early(err), 0)
	}
	return nil
}

func parseTurn(raw json.RawMessage, data []byte, base int64) (Turn, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Turn{}, errors.New("must be an object")
	}
	for k := range fields {
		if !knownTurnFields[k] {
			return Turn{}, fmt.Errorf("unknown field %q", k)
		}
	}
	var t Turn
	if err := json.Unmarshal(raw, &t); err != nil {
		return Turn{}, describeJSONError(data, err, base)
	}
	for k, c := range t.ToolCalls {
		if strings.TrimSpace(c.Name) == "" {
			return Turn{}, fmt.Errorf("tool_calls[%d]: missing name", k)
		}
		in := bytes.TrimSpace(c.Input)
		if len(in) == 0 || string(in) == "null" {
			in = []byte("{}")
		}
		if in[0] != '{' {
			return Turn{}, fmt.Errorf("tool_calls[%d] (%s): input must be a JSON object", k, c.Name)
		}
		t.ToolCalls[k].Input = json.RawMessage(in)
	}
	switch t.StopReason {
	case "", "end_turn", "tool_use", "max_tokens", "stop_sequence":
	default:
		return Turn{}, fmt.Errorf("stop_reason %q: want end_turn, tool_use or max_tokens", t.StopReason)
	}
	if t.Error != nil {
		if t.Error.Status < 400 || t.Error.Status > 599 {
			return Turn{}, fmt.Errorf("error.status %d: want an HTTP error status (400-599)", t.Error.Status)
		}
		if t.Error.Times < 0 {
			return Turn{}, errors.New("error.times must not be negative")
		}
		if t.Error.Times == 0 {
			t.Error.Times = 1
		}
	}
	if t.StreamError != nil {
		if t.StreamError.Type == "" {
			t.StreamError.Type = "overloaded_error"
		}
		if t.StreamError.Message == "" {
			t.StreamError.Message = "Overloaded"
		}
		if t.StreamError.Times <= 0 {
			t.StreamError.Times = 1
		}
	}
	if t.CutAfterChunks < 0 || t.ChunkDelayMS < 0 || t.ChunkSize < 0 || t.CutTimes < 0 {
		return Turn{}, errors.New("cut_after_chunks, cut_times, chunk_delay_ms and chunk_size must not be negative")
	}
	if t.CutAfterChunks > 0 && t.CutTimes == 0 {
		t.CutTimes = 1
	}
	if t.ChunkSize == 0 {
		t.ChunkSize = 6
	}
	return t, nil
}

// describeJSONError turns a decoding error into "line L col C: reason".
// base is added to offsets that are relative to a part of data.
func describeJSONError(data []byte, err error, base int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		l, c := lineCol(data, base+se.Offset)
		return fmt.Errorf("line %d col %d: %v", l, c, se)
	case errors.As(err, &te):
		l, c := lineCol(data, base+te.Offset)
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Errorf("line %d col %d: %s must be %s, not %s", l, c, field, te.Type, te.Value)
	case err == io.EOF:
		return errors.New("empty file")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the file ends too early (an unclosed bracket, brace or string)")
	}
	return err
}

// early treats the end of input inside the object as a truncated file.
func early(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
