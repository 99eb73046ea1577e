// Package headless is the front-end of `hew -p`: it turns the agent's events
// into plain text or JSON lines (SPEC section 6) and answers every approval
// request with "no", so a run without a terminal never blocks on a question.
// It runs one task (Writer.Run) or a conversation with a program writing
// user messages as stream-json lines on stdin (Writer.Converse).
package headless

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/agent"
)

// Format is an output format of `--output-format`.
type Format string

// Output formats.
const (
	FormatText       Format = "text"
	FormatJSON       Format = "json"
	FormatStreamJSON Format = "stream-json"
)

// ParseFormat checks a user-supplied format name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return f, nil
	case "":
		return FormatText, nil
	}
	return "", fmt.Errorf("unknown output format %q (want text, json or stream-json)", s)
}

// textChunk is how much assistant text without a line end stream-json
// holds back before writing it (cut after a space).
const textChunk = 80

// MaxContent bounds the tool result content in stream-json events (the
// model got the whole result; scripts get a preview unless Verbose).
const MaxContent = 4000

// Options tunes a Writer.
type Options struct {
	Format Format
	// Out receives the answer (text) or the JSON lines.
	Out io.Writer
	// Err receives progress lines in text format (tool calls, denials,
	// notices); nil discards them.
	Err io.Writer
	// Verbose shows full tool results, intermediate text and timings.
	Verbose bool
}

// Init is what the stream-json "init" event announces.
type Init struct {
	SessionID      string
	Model          string
	Provider       string
	Tools          []string
	PermissionMode string
	Cwd            string
}

// Writer subscribes to agent events and writes them in one format.
// Handle is safe for concurrent use; events are written in arrival order.
type Writer struct {
	opt Options

	mu       sync.Mutex
	midLine  bool            // stderr progress text ended without a newline
	seen     map[string]bool // tool_use ids already announced
	denied   map[string]bool // tool_use ids already reported as denied
	pending  map[string]denialEvent
	text     strings.Builder // stream-json text not yet written
	sent     int             // characters of text written since the last model request began
	err      error           // first write error
	finished bool
}

// New returns a Writer for opt. A zero Format means text.
func New(opt Options) *Writer {
	if opt.Format == "" {
		opt.Format = FormatText
	}
	if opt.Err == nil {
		opt.Err = io.Discard
	}
	return &Writer{opt: opt, seen: map[string]bool{}, denied: map[string]bool{}, pending: map[string]denialEvent{}}
}

// Err returns the first error met while writing (e.g. a closed pipe).
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Start announces the session (stream-json only).
func (w *Writer) Start(in Init) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opt.Format != FormatStreamJSON {
		return
	}
	toolsList := in.Tools
	if toolsList == nil {
		toolsList = []string{}
	}
	w.line(initEvent{"init", in.SessionID, in.Model, in.Provider, toolsList, in.PermissionMode, in.Cwd})
}

// Handle is an agent.Config.Emit function.
func (w *Writer) Handle(e agent.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch w.opt.Format {
	case FormatStreamJSON:
		w.streamEvent(e)
	case FormatText:
		w.textEvent(e)
	case FormatJSON:
		// stdout holds only the result object; warnings still reach people.
		if n, ok := e.(agent.Notice); ok && n.Level != "info" {
			w.write(w.opt.Err, "hew: "+n.Text+"\n")
		}
	}
}

// NextTurn lets Finish write again: with --input-format stream-json each
// user message is a turn of its own and ends with its own result line.
func (w *Writer) NextTurn() {
	w.mu.Lock()
	w.finished = false
	w.mu.Unlock()
}

// Finish writes the end of the run: the result object (json, stream-json) or
// the final answer (text). It is written once; later calls do nothing.
func (w *Writer) Finish(r agent.TurnResult) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return
	}
	w.finished = true
	switch w.opt.Format {
	case FormatText:
		w.endProgressLine()
		if r.Text != "" {
			w.write(w.opt.Out, strings.TrimRight(r.Text, "\n")+"\n")
		}
		if r.StopReason != agent.StopCompleted && r.StopReason != agent.StopGoalMet {
			msg := "hew: stopped: " + string(r.StopReason)
			if r.Err != "" {
				msg += ": " + r.Err
			}
			w.write(w.opt.Err, msg+"\n")
		}
		if w.opt.Verbose {
			w.write(w.opt.Err, usageLine(r)+"\n")
		}
	default:
		w.flushText()
		ids := make([]string, 0, len(w.pending)) // denials whose call never finished
		for id := range w.pending {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			w.line(w.pending[id])
		}
		w.pending = map[string]denialEvent{}
		w.line(ResultObject(r))
	}
}

// Result is the SPEC section 6 result object, the last line of a run.
type Result struct {
	Type              string         `json:"type"`
	StopReason        string         `json:"stop_reason"`
	IsError           bool           `json:"is_error"`
	Result            string         `json:"result"`
	SessionID         string         `json:"session_id"`
	NumTurns          int            `json:"num_turns"`
	Usage             ResultUsage    `json:"usage"`
	CostUSD           *float64       `json:"cost_usd"` // null when the price is unknown
	PermissionDenials []agent.Denial `json:"permission_denials"`
	DurationMS        int64          `json:"duration_ms"`
	ToolCalls         int            `json:"tool_calls"`
	Error             string         `json:"error,omitempty"`
}

// ResultUsage is the usage object of a Result, with Anthropic's field names.
type ResultUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

// ResultObject converts a turn's result into the SPEC section 6 object.
func ResultObject(r agent.TurnResult) Result {
	denials := r.Denials
	if denials == nil {
		denials = []agent.Denial{}
	}
	var cost *float64
	if r.CostUSD >= 0 { // unknown price: never pretend it was free
		c := roundCost(r.CostUSD)
		cost = &c
	}
	stop := r.StopReason
	if stop == "" {
		stop = agent.StopError
	}
	return Result{
		Type: "result", StopReason: string(stop),
		IsError:   stop != agent.StopCompleted && stop != agent.StopGoalMet,
		Result:    r.Text,
		SessionID: r.SessionID,
		NumTurns:  r.RoundTrips,
		Usage: ResultUsage{
			InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens,
			CacheReadInputTokens: r.Usage.CacheReadTokens, CacheCreationInputTokens: r.Usage.CacheWriteTokens,
		},
		CostUSD: cost, PermissionDenials: denials,
		DurationMS: r.DurationMS, ToolCalls: r.ToolCalls, Error: r.Err,
	}
}

// The stream-json events, as structs so "type" comes first on every line.
type (
	initEvent struct {
		Type           string   `json:"type"`
		SessionID      string   `json:"session_id"`
		Model          string   `json:"model"`
		Provider       string   `json:"provider"`
		Tools          []string `json:"tools"`
		PermissionMode string   `json:"permission_mode"`
		Cwd            string   `json:"cwd"`
	}
	textEvent struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	toolUseEvent struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	toolResultEvent struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Name    string `json:"name"`
		IsError bool   `json:"is_error"`
		Content string `json:"content"`
	}
	denialEvent struct {
		Type   string `json:"type"`
		ID     string `json:"id"`
		Tool   string `json:"tool"`
		Reason string `json:"reason"`
		Source string `json:"source,omitempty"`
	}
	retryEvent struct {
		Type    string `json:"type"`
		Attempt int    `json:"attempt"`
		Reason  string `json:"reason,omitempty"`
		// DiscardTextChars is how many characters of the text events since
		// the model request began belong to the failed attempt.
		DiscardTextChars int `json:"discard_text_chars"`
	}
	noticeEvent struct {
		Type  string `json:"type"`
		Level string `json:"level"`
		Text  string `json:"text"`
	}
	compactedEvent struct {
		Type         string `json:"type"`
		Tier         int    `json:"tier"`
		TokensBefore int    `json:"tokens_before"`
		TokensAfter  int    `json:"tokens_after"`
		Reason       string `json:"reason,omitempty"`
	}
)

func (w *Writer) streamEvent(e agent.Event) {
	switch e := e.(type) {
	case agent.TextDelta:
		// Text goes out by line, or by word once a line grows long: live,
		// without one event per token.
		w.text.WriteString(e.Text)
		buf := w.text.String()
		cut := strings.LastIndex(buf, "\n") + 1
		if cut == 0 && len(buf) >= textChunk {
			if cut = strings.LastIndex(buf, " ") + 1; cut == 0 {
				cut = len(buf)
			}
		}
		if cut > 0 {
			w.line(textEvent{"text", buf[:cut]})
			w.sent += utf8.RuneCountInString(buf[:cut])
			w.text.Reset()
			w.text.WriteString(buf[cut:])
		}
		return
	case agent.RequestStarted:
		w.flushText()
		w.sent = 0
		return
	case agent.Retrying:
		// The failed attempt's text is void: drop what is still held back
		// and tell scripts how much of what they got to discard.
		w.text.Reset()
		w.line(retryEvent{"retry", e.Attempt, e.Reason, w.sent})
		w.sent = 0
		return
	}
	w.flushText()
	switch e := e.(type) {
	case agent.ToolRequested:
		w.announce(e.ID, e.Name, e.Input)
	case agent.ToolStarted:
		w.announce(e.ID, e.Name, e.Input)
	case agent.PermissionDecided:
		if e.Decision == "deny" && !w.denied[e.ID] {
			w.denied[e.ID] = true
			d := denialEvent{"permission_denial", e.ID, e.Tool, e.Reason, e.Source}
			if w.seen[e.ID] {
				w.line(d)
			} else {
				// Held back until the call's tool_use can be written first.
				w.pending[e.ID] = d
			}
		}
	case agent.ToolFinished:
		// A call refused before it started has no ToolStarted; announce it
		// from its receipt so every tool_result follows its tool_use.
		var input json.RawMessage
		if e.Receipt != nil {
			input = e.Receipt.Input
		}
		w.announce(e.ID, e.Name, input)
		// Refusals met while the call ran (the sandbox proxy's) are listed
		// in the result's permission_denials; stream each one as it happens too.
		for _, d := range e.Denials {
			w.line(denialEvent{"permission_denial", e.ID, e.Name, d.Reason, "sandbox"})
		}
		content := e.Result
		if !w.opt.Verbose {
			content = shorten(content, MaxContent)
		}
		w.line(toolResultEvent{"tool_result", e.ID, e.Name, e.IsError, content})
	case agent.Notice:
		w.line(noticeEvent{"notice", e.Level, e.Text})
	case agent.Compacted:
		w.line(compactedEvent{"compacted", e.Tier, e.TokensBefore, e.TokensAfter, e.Reason})
	}
}

// flushText writes assistant text held back waiting for a line end.
func (w *Writer) flushText() {
	if w.text.Len() > 0 {
		w.sent += utf8.RuneCountInString(w.text.String())
		w.line(textEvent{"text", w.text.String()})
		w.text.Reset()
	}
}

func (w *Writer) announce(id, name string, input json.RawMessage) {
	if w.seen[id] {
		return
	}
	w.seen[id] = true
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	w.line(toolUseEvent{"tool_use", id, name, input})
	if d, ok := w.pending[id]; ok {
		delete(w.pending, id)
		w.line(d)
	}
}

func (w *Writer) textEvent(e agent.Event) {
	switch e := e.(type) {
	case agent.TextDelta:
		if w.opt.Verbose && e.Text != "" {
			w.write(w.opt.Err, e.Text)
			w.midLine = !strings.HasSuffix(e.Text, "\n")
		}
	case agent.ToolStarted:
		w.endProgressLine()
		summary := e.Summary
		if summary == "" && len(e.Input) > 0 && string(e.Input) != "{}" {
			summary = string(e.Input)
		}
		line := e.Name + " " + oneLine(summary)
		if strings.HasPrefix(summary, e.Name) { // already "name(arg)"
			line = oneLine(summary)
		}
		w.write(w.opt.Err, strings.TrimRight("• "+line, " ")+"\n")
	case agent.ToolFinished:
		w.endProgressLine()
		w.write(w.opt.Err, resultLines(e, w.opt.Verbose))
	case agent.PermissionDecided:
		if e.Decision == "deny" && !w.denied[e.ID] {
			w.denied[e.ID] = true
			w.endProgressLine()
			w.write(w.opt.Err, "✗ "+e.Tool+" denied: "+oneLine(e.Reason)+"\n")
		}
	case agent.Notice:
		w.endProgressLine()
		w.write(w.opt.Err, "hew: "+e.Text+"\n")
	}
}

// resultLines renders a tool result for the progress stream: at most five
// lines unless verbose.
func resultLines(e agent.ToolFinished, verbose bool) string {
	body := e.Result
	if e.Display != "" && !e.IsError {
		body = e.Display
	}
	body = strings.TrimRight(body, "\n")
	lines := strings.Split(body, "\n")
	if body == "" {
		lines = nil
	}
	var b strings.Builder
	head := "  ⎿ "
	if e.IsError {
		head = "  ⎿ error: "
	}
	if len(lines) == 0 {
		b.WriteString(head + "(no output)\n")
		if verbose {
			b.WriteString(receiptLine(e))
		}
		return b.String()
	}
	limit := 5
	if verbose {
		limit = len(lines)
	}
	for i, l := range lines {
		if i == limit {
			fmt.Fprintf(&b, "    … %d more lines\n", len(lines)-limit)
			break
		}
		prefix := "    "
		if i == 0 {
			prefix = head
		}
		b.WriteString(prefix + l + "\n")
	}
	if verbose {
		b.WriteString(receiptLine(e))
	}
	return b.String()
}

// receiptLine is the --verbose line under a tool result.
func receiptLine(e agent.ToolFinished) string {
	if e.Receipt != nil {
		return "    [" + e.Receipt.Summary() + "]\n"
	}
	return fmt.Sprintf("    [%s]\n", e.Elapsed.Round(1e6))
}

// roundCost drops float noise from a sum of prices (0.021366000000000003
// becomes 0.021366): a millionth of a cent is far below any price step.
func roundCost(c float64) float64 { return math.Round(c*1e8) / 1e8 }

// plural writes n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func usageLine(r agent.TurnResult) string {
	cost := "unknown"
	if r.CostUSD >= 0 {
		cost = fmt.Sprintf("$%.4f", r.CostUSD)
	}
	return fmt.Sprintf("hew: %s, %s, tokens in %d out %d cache read %d write %d, cost %s (estimate), %d ms",
		plural(r.RoundTrips, "round trip", "round trips"), plural(r.ToolCalls, "tool call", "tool calls"), r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.CacheReadTokens, r.Usage.CacheWriteTokens, cost, r.DurationMS)
}

func (w *Writer) endProgressLine() {
	if w.midLine {
		w.write(w.opt.Err, "\n")
		w.midLine = false
	}
}

func (w *Writer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		w.setErr(fmt.Errorf("encode event: %w", err))
		return
	}
	w.write(w.opt.Out, string(b)+"\n")
}

func (w *Writer) write(out io.Writer, s string) {
	if _, err := io.WriteString(out, s); err != nil {
		w.setErr(err)
	}
}

func (w *Writer) setErr(err error) {
	if w.err == nil {
		w.err = err
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return shorten(s, 160)
}

// shorten cuts s to at most n runes, saying how much was cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("… [%d more characters]", len(r)-n)
}

// Denier is the headless Approver: whatever would ask is denied, and the
// reason says how to allow it next time.
type Denier struct{}

// Approve always answers no.
func (Denier) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Approval, string) {
	why := "headless mode never asks"
	if req.Reason != "" {
		why = req.Reason + "; " + why
	}
	return agent.ApproveDeny, why + " (allow it with --allowed-tools, an allow rule or a mode such as --accept-edits)"
}
