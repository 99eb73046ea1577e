// Package render draws agent events on a terminal: streamed assistant text
// (lightweight Markdown on a TTY, verbatim when piped), a spinner while the
// model or a tool works, one line per tool call with a short result, diffs,
// todo lists, notices, approval questions and the bell. It only writes;
// reading input is the REPL's job.
package render

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/term"
)

// DefaultBellAfter is how long a turn must take before its end rings the bell.
const DefaultBellAfter = 10 * time.Second

// Options tune a Renderer.
type Options struct {
	// Verbose shows full tool results, timings, thinking and cache notes.
	Verbose bool
	// BellAfter rings the terminal bell when a turn lasting at least this
	// long ends; 0 means DefaultBellAfter, a negative value never rings.
	// A waiting question rings too unless the bell is off.
	BellAfter time.Duration
	// ResultLines is how many lines of a tool result are shown (default 5);
	// Verbose shows all.
	ResultLines int
}

// Renderer turns agent events into terminal output. Emit may be called
// from any goroutine; output stays ordered.
type Renderer struct {
	mu   sync.Mutex
	s    *term.Streams
	out  io.Writer
	opts Options
	st   styles
	live bool // stdout is a terminal: Markdown, spinner, in-place rewrites
	now  func() time.Time

	// assistant text of the current line
	partial strings.Builder
	echo    liveEcho // how the current line was shown while streaming
	midLine bool     // the cursor is not at column 0
	// reqRows counts the rows of assistant text printed since the model
	// request began, so a retried request can take its void text back.
	reqRows int
	// thinking is the collapsed one-line view of the model's thinking.
	thinking strings.Builder
	thinkOn  bool // the thinking line is on screen (the cursor is on it)
	// lastKind is what the previous block was ("text", "tool"), so text
	// and tool calls are separated by one blank line.
	lastKind string
	md       mdState

	spin      spinner
	turnStart time.Time
	lastTool  string            // id of the last tool line printed
	calls     map[string]string // tool id → its printed call line
	denied    map[string]bool   // tool ids refused by permissions
	lastOut   toolOutput        // the last finished tool call, in full (Ctrl+O)

	usage   llm.Usage
	costUSD float64
	ctxTok  int
	ctxWin  int
}

// New returns a renderer writing to s.Out.
func New(s *term.Streams, opts Options) *Renderer {
	if opts.BellAfter == 0 {
		opts.BellAfter = DefaultBellAfter
	}
	if opts.ResultLines <= 0 {
		opts.ResultLines = 5
	}
	r := &Renderer{
		s: s, out: s.Out, opts: opts,
		st:      styles{on: s.Color},
		live:    s.OutTTY,
		now:     time.Now,
		calls:   map[string]string{},
		denied:  map[string]bool{},
		costUSD: -1,
	}
	r.spin.tick = defaultTicker
	return r
}

// Emit renders one event; it is what agent.Config.Emit should call.
func (r *Renderer) Emit(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := e.(type) {
	case agent.TurnStarted:
		r.turnStart = r.now()
		r.calls, r.denied, r.lastTool, r.lastKind = map[string]string{}, map[string]bool{}, "", ""
		r.md = mdState{}
	case agent.RequestStarted:
		r.endLine()
		r.reqRows = 0
		r.startSpinner("Thinking")
	case agent.Retrying:
		r.voidAttempt()
	case agent.TextDelta:
		r.text(ev.Text)
	case agent.ThinkingDelta:
		r.think(sanitize(ev.Text))
	case agent.ToolStarted:
		r.toolStarted(ev)
	case agent.ToolFinished:
		r.toolFinished(ev)
	case agent.PermissionDecided:
		if ev.Decision == string(permissionDeny) {
			r.denied[ev.ID] = true
			r.pause()
			r.line(r.st.red("✗ ") + r.st.bold(ev.Tool) + " " + r.st.red("denied") + r.st.dim(": "+oneLine(ev.Reason)))
		}
	case agent.ApprovalRequest:
		r.pause()
	case agent.Notice:
		r.pause()
		r.notice(ev.Level, ev.Text)
	case agent.UsageUpdated:
		r.usage, r.costUSD = ev.Total, ev.CostUSD
	case agent.ContextUpdated:
		r.ctxTok, r.ctxWin = ev.Tokens, ev.Window
	case agent.Compacted:
		if ev.Tier >= 4 || r.opts.Verbose {
			r.pause()
			msg := fmt.Sprintf("context compacted: %s → %s tokens", kTokens(ev.TokensBefore), kTokens(ev.TokensAfter))
			if ev.Reason != "" {
				msg += " (" + ev.Reason + ")"
			}
			r.notice("info", msg)
		}
	case agent.CacheMissUnexpected:
		if r.opts.Verbose {
			r.pause()
			r.notice("warn", "prompt cache missed: "+ev.Reason)
		}
	case agent.TurnEnded:
		r.turnEnded(ev.Result)
	}
}

const permissionDeny = "deny"

// Close stops the spinner; the renderer stays usable.
func (r *Renderer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopSpinner()
}

// Pause stops the spinner and ends a half-written line so that other
// output (a question, a command's answer) starts on a clean line.
func (r *Renderer) Pause() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pause()
}

// Working shows the spinner with label (e.g. "Compacting") until the next
// output; on a terminal only.
func (r *Renderer) Working(label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLine()
	r.startSpinner(label)
}

// Println writes one line of REPL output after pausing the live display.
func (r *Renderer) Println(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pause()
	r.line(s)
}

// Notice writes one dim line (level "warn" or "error" is coloured).
func (r *Renderer) Notice(level, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pause()
	r.notice(level, text)
}

// Style helpers for the REPL's own messages; they follow the colour setting.

// Dim returns s dimmed.
func (r *Renderer) Dim(s string) string { return r.st.dim(s) }

// Bold returns s in bold.
func (r *Renderer) Bold(s string) string { return r.st.bold(s) }

// Error returns s in the error colour.
func (r *Renderer) Error(s string) string { return r.st.red(s) }

// toolOutput is one finished tool call as Ctrl+O shows it.
type toolOutput struct {
	call, result string
	isError      bool
}

// LastToolOutput returns the last finished tool call's line and its whole
// result (or diff), for showing in full on demand; ok is false before the
// first tool call.
func (r *Renderer) LastToolOutput() (call, output string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastOut.call == "" {
		return "", "", false
	}
	return r.lastOut.call, r.lastOut.result, true
}

// ShowLastToolOutput prints the last tool call's full output (Ctrl+O).
func (r *Renderer) ShowLastToolOutput() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pause()
	if r.lastOut.call == "" {
		r.line(r.st.dim("No tool has run yet."))
		return
	}
	r.line(r.st.blue("●") + " " + r.lastOut.call + r.st.dim(" · full output"))
	body := strings.TrimRight(r.lastOut.result, "\n")
	if strings.TrimSpace(body) == "" {
		r.line(resultFirst + r.st.dim("(no output)"))
		return
	}
	for i, l := range strings.Split(body, "\n") {
		prefix := resultRest
		if i == 0 {
			prefix = resultFirst
		}
		if r.lastOut.isError {
			l = r.st.red(l)
		}
		r.line(prefix + l)
	}
}

// Context returns the last reported context use (tokens, window); zeros
// before the first request.
func (r *Renderer) Context() (tokens, window int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ctxTok, r.ctxWin
}

// Bell rings the terminal bell on a TTY unless the bell is off.
func (r *Renderer) Bell() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bell()
}

func (r *Renderer) bell() {
	if r.live && r.opts.BellAfter > 0 {
		r.write("\a")
	}
}

func (r *Renderer) pause() {
	r.stopSpinner()
	r.endLine()
}

func (r *Renderer) write(s string) { _, _ = io.WriteString(r.out, s) }

// line writes s and a newline; the cursor must be at column 0.
func (r *Renderer) line(s string) {
	r.write(s + "\n")
	r.midLine = false
}

func (r *Renderer) notice(level, text string) {
	text = oneLine(sanitize(text))
	switch level {
	case "error":
		r.line(r.st.red("! " + text))
	case "warn":
		r.line(r.st.yellow("! " + text))
	default:
		r.line(r.st.dim("· " + text))
	}
}

// text streams assistant text. When piped it is written verbatim. On a
// terminal each piece is written as it arrives and the finished line is
// redrawn with Markdown styling.
func (r *Renderer) text(t string) {
	r.stopSpinner()
	t = sanitize(t)
	if t == "" {
		return
	}
	if r.lastKind == "tool" {
		r.write("\n")
	}
	r.lastKind = "text"
	if !r.live {
		r.write(t)
		r.midLine = !strings.HasSuffix(t, "\n")
		return
	}
	r.endThinking()
	for {
		i := strings.IndexByte(t, '\n')
		piece := t
		if i >= 0 {
			piece = t[:i]
		}
		if piece != "" {
			r.partial.WriteString(piece)
			if r.md.holds(r.partial.String()) {
				// tables and code are drawn whole; take back a start
				// that looked like prose
				r.write(r.echo.erase())
				r.echo.reset()
			} else {
				r.write(r.echo.add(piece, r.s.Width()))
			}
			r.midLine = true
		}
		if i < 0 {
			return
		}
		r.finishLine()
		t = t[i+1:]
	}
}

// finishLine replaces the streamed line with its styled rows and ends it.
func (r *Renderer) finishLine() {
	raw := r.partial.String()
	rows := r.md.feed(raw, r.st, r.s.Width())
	if len(rows) == 1 && rows[0] == raw && r.echo.used && r.echo.rows == 0 {
		r.write("\n") // what streamed is what it is: no redraw
		r.reqRows++
	} else {
		r.write(r.echo.erase())
		r.printRows(rows)
	}
	r.partial.Reset()
	r.echo.reset()
	r.midLine = false
}

// printRows writes finished rows of assistant text and counts them.
func (r *Renderer) printRows(rows []string) {
	width := max(r.s.Width(), 1)
	for _, row := range rows {
		r.write(row + "\n")
		r.reqRows += max(1, (visibleWidth(row)+width-1)/width)
	}
}

// voidAttempt takes back the text of a model request that failed midway
// and is being retried: the retry streams it again, so it must not show
// twice. Rows that scrolled off the screen cannot be taken back; a note
// then says the text above was cut.
func (r *Renderer) voidAttempt() {
	r.stopSpinner()
	r.endThinking()
	r.write(r.echo.erase())
	r.partial.Reset()
	r.echo.reset()
	r.md = mdState{}
	r.midLine = false
	if !r.live || r.reqRows == 0 {
		r.reqRows = 0
		return
	}
	h := r.s.Height()
	if r.reqRows < h-1 {
		r.write(fmt.Sprintf("\r\x1b[%dA\x1b[J", r.reqRows))
	} else {
		r.line(r.st.dim("(the answer above was cut off; it is being sent again)"))
	}
	r.reqRows = 0
}

// think shows the model's thinking: in full and dimmed with --verbose,
// else collapsed to one dim line that follows the latest thought.
func (r *Renderer) think(t string) {
	if t == "" {
		return
	}
	r.stopSpinner()
	if r.partial.Len() > 0 {
		r.finishLine()
	}
	if r.opts.Verbose {
		r.write(r.st.dim(t))
		r.midLine = !strings.HasSuffix(t, "\n")
		return
	}
	r.thinking.WriteString(t)
	if !r.live {
		return
	}
	text := strings.Join(strings.Fields(r.thinking.String()), " ")
	room := max(r.s.Width()-4, 8)
	if Width(text) > room { // the latest words, as they come
		rs := []rune(text)
		for len(rs) > 0 && Width(string(rs)) > room-1 {
			rs = rs[1:]
		}
		text = "…" + string(rs)
	}
	r.write("\r" + r.st.dim("✻ "+text) + "\x1b[K")
	r.thinkOn, r.midLine = true, true
}

// endThinking leaves the collapsed thinking line as one line.
func (r *Renderer) endThinking() {
	r.thinking.Reset()
	if r.thinkOn {
		r.write("\n")
		r.thinkOn, r.midLine = false, false
	}
}

// endLine finishes any half-written line and draws a table still held.
func (r *Renderer) endLine() {
	r.endThinking()
	if r.partial.Len() > 0 {
		r.finishLine()
	}
	if r.midLine {
		r.write("\n")
		r.midLine = false
	}
	if r.live {
		r.printRows(r.md.flush(r.st, r.s.Width()))
	}
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// countOf writes n and the noun, plural unless n is 1.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (r *Renderer) turnEnded(res agent.TurnResult) {
	r.pause()
	switch res.StopReason {
	case agent.StopCompleted, "":
	case agent.StopAborted:
		if r.live {
			r.write("\r") // over the "^C" the terminal echoed at column 0
		}
		r.line(r.st.yellow("⏹ Interrupted") + r.st.dim(" · the conversation is kept"))
	case agent.StopError:
		msg := res.Err
		if msg == "" {
			msg = "the turn failed"
		}
		r.line(r.st.red("✗ Error: " + oneLine(msg)))
	case agent.StopMaxTurns:
		r.line(r.st.yellow("⏹ Stopped: " + orElse(res.Err, "the turn limit was reached")))
	case agent.StopMaxBudget:
		r.line(r.st.yellow("⏹ Stopped: " + orElse(res.Err, "the token or cost budget was reached")))
	case agent.StopGoalMet:
		r.line(r.st.green("✓ Goal met"))
	case agent.StopGoalImpossible:
		r.line(r.st.yellow("⏹ Goal judged impossible"))
	default:
		r.line(r.st.yellow("⏹ Stopped: " + string(res.StopReason)))
	}
	if r.opts.Verbose {
		r.line(r.st.dim(fmt.Sprintf("· %s · %s · %s in / %s out · %s · %s",
			countOf(res.RoundTrips, "round trip"), countOf(res.ToolCalls, "tool call"), kTokens(res.Usage.InputTokens+res.Usage.CacheReadTokens+res.Usage.CacheWriteTokens),
			kTokens(res.Usage.OutputTokens), FormatCost(res.CostUSD), FormatDuration(time.Duration(res.DurationMS)*time.Millisecond))))
	}
	if !r.turnStart.IsZero() && r.now().Sub(r.turnStart) >= r.opts.BellAfter {
		r.bell()
	}
	r.turnStart = time.Time{}
}

// oneLine collapses s to its first line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// kTokens prints a token count compactly: 950, 12.3k, 1.2M.
func kTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// FormatTokens prints a token count compactly (950, 1.2k, 12k, 1.2M).
func FormatTokens(n int) string { return kTokens(n) }

// FormatCost prints a USD estimate, or "cost unknown" for -1.
func FormatCost(usd float64) string {
	switch {
	case usd < 0:
		return "cost unknown"
	case usd == 0:
		return "$0.00"
	case usd < 0.01:
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// Age says how long ago something was, briefly: "just now", "5m ago",
// "3h ago", "2d ago" (session pickers).
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// FormatDuration prints 850ms, 4.2s, 3m05s.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
