package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/tools"
)

const (
	resultFirst = "  ⎿  "
	resultRest  = "     "
	diffLines   = 40 // diff lines shown without --verbose
)

func (r *Renderer) toolStarted(ev agent.ToolStarted) {
	r.pause()
	if r.lastKind == "text" {
		r.write("\n")
	}
	r.lastKind = "tool"
	call := r.callLine(ev.Name, ev.Summary, ev.Input)
	r.calls[ev.ID] = call
	r.lastTool = ev.ID
	r.line(r.st.blue("●") + " " + call)
	r.startSpinner("Running " + ev.Name)
}

func (r *Renderer) callLine(name, summary string, input json.RawMessage) string {
	if summary == "" && len(input) > 0 {
		summary = tools.Summarize(nil, name, input) // no registry here: the generic summary
	}
	// tools.Summarize writes "name(arg)"; the line shows the name once.
	if inner, ok := strings.CutPrefix(summary, name+"("); ok && strings.HasSuffix(inner, ")") {
		summary = strings.TrimSuffix(inner, ")")
	}
	summary = oneLine(sanitize(summary))
	room := r.s.Width() - Width(name) - 3
	if summary == "" || room < 4 {
		return r.st.bold(name)
	}
	return r.st.bold(name) + " " + Truncate(summary, room)
}

func (r *Renderer) toolFinished(ev agent.ToolFinished) {
	r.pause()
	if r.denied[ev.ID] {
		return
	}
	if r.lastTool != ev.ID {
		call, ok := r.calls[ev.ID]
		if !ok {
			call = r.st.bold(ev.Name)
		}
		r.line(r.st.blue("●") + " " + call)
	}
	r.lastTool = ""
	full := sanitize(ev.Result)
	if ev.Display != "" && !ev.IsError {
		full = sanitize(ev.Display) + "\n" + full
	}
	r.lastOut = toolOutput{call: r.calls[ev.ID], result: full, isError: ev.IsError}
	if r.lastOut.call == "" {
		r.lastOut.call = r.st.bold(ev.Name)
	}
	var body []string
	switch {
	case len(ev.Todos) > 0:
		body = r.todoLines(ev.Todos)
	case ev.Display != "" && !ev.IsError:
		body = r.limit(r.diffLines(sanitize(ev.Display)), diffLines)
	default:
		res := strings.TrimRight(sanitize(ev.Result), "\n")
		if strings.TrimSpace(res) == "" {
			body = []string{r.st.dim("(no output)")}
			break
		}
		body = r.limit(strings.Split(res, "\n"), r.opts.ResultLines)
		if ev.IsError {
			for i, l := range body {
				body[i] = r.st.red(l)
			}
		}
	}
	if r.opts.Verbose {
		if ev.Receipt != nil {
			body = append(body, r.st.dim(ev.Receipt.Summary()))
		} else if ev.Elapsed > 0 {
			body = append(body, r.st.dim("took "+FormatDuration(ev.Elapsed.Round(time.Millisecond))))
		}
	}
	for i, l := range body {
		prefix := resultRest
		if i == 0 {
			prefix = resultFirst
		}
		r.line(r.st.dim(prefix) + l)
	}
}

// limit keeps at most n lines (all when verbose), each cut to the width.
func (r *Renderer) limit(lines []string, n int) []string {
	room := max(r.s.Width()-Width(resultFirst), 10)
	more := 0
	if !r.opts.Verbose && len(lines) > n {
		more = len(lines) - n
		lines = lines[:n]
	}
	out := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		if !strings.Contains(l, "\x1b[") {
			l = Truncate(l, room)
		}
		out = append(out, l)
	}
	if more > 0 {
		out = append(out, r.st.dim(fmt.Sprintf("… +%d lines (--verbose shows all)", more)))
	}
	return out
}

// diffLines colours a unified diff: additions green, removals red, hunk
// headers cyan. Text that is not a diff is returned as lines, uncoloured.
func (r *Renderer) diffLines(d string) []string {
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	if !strings.Contains(d, "@@") {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		room := max(r.s.Width()-Width(resultFirst), 10)
		if r.opts.Verbose {
			room = 1 << 30
		}
		l = Truncate(l, room)
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			out[i] = r.st.bold(l)
		case strings.HasPrefix(l, "+"):
			out[i] = r.st.green(l)
		case strings.HasPrefix(l, "-"):
			out[i] = r.st.red(l)
		case strings.HasPrefix(l, "@@"):
			out[i] = r.st.cyan(l)
		default:
			out[i] = l
		}
	}
	return out
}

func (r *Renderer) todoLines(todos []tools.Todo) []string {
	out := make([]string, 0, len(todos))
	for _, t := range todos {
		text := oneLine(sanitize(t.Content))
		switch t.Status {
		case "completed":
			out = append(out, r.st.green("☒")+" "+r.st.dim(text))
		case "in_progress":
			out = append(out, r.st.yellow("◐")+" "+r.st.bold(text))
		default:
			out = append(out, "☐ "+text)
		}
	}
	return out
}

// summarize is the fallback one-line description of a call's input when
// the event carries none: the most telling string field.
func summarize(input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "description", "name", "prompt"} {
		if v, ok := m[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

// ShowApproval prints an approval question: the tool, the exact command,
// path or URL, why it asks, and the diff for edits, then the choices. The
// cursor is left after the choices for the answer; call Answered next.
func (r *Renderer) ShowApproval(req agent.ApprovalRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pause()
	head := r.st.yellow("?") + " " + r.st.bold("Allow "+req.Tool+"?")
	if req.Reason != "" {
		head += r.st.dim("  (" + oneLine(sanitize(req.Reason)) + ")")
	}
	r.line(head)
	subject := req.Subject
	if subject == "" {
		subject = summarize(req.Input)
	}
	for _, l := range strings.Split(strings.TrimRight(sanitize(subject), "\n"), "\n") {
		if l != "" || subject != "" {
			r.line(r.st.dim("  │ ") + l)
		}
	}
	if req.Diff != "" {
		for _, l := range r.limit(r.diffLines(sanitize(req.Diff)), diffLines) {
			r.line("    " + l)
		}
	}
	if req.Suggest != "" {
		r.line(r.st.dim("  a saves ") + sanitize(req.Suggest) + r.st.dim(" to .hew/settings.local.json"))
	}
	session := " this session"
	if req.SessionScope != "" {
		session += " (" + sanitize(req.SessionScope) + ")"
	}
	always := " yes for" + session + " · "
	if req.Suggest != "" {
		always = " yes, don't ask again · " + r.st.bold("s") + r.st.dim(session+" · ")
	}
	r.write(r.st.dim("  ") + r.st.bold("y") + r.st.dim(" yes · ") + r.st.bold("a") + r.st.dim(always) +
		r.st.bold("n") + r.st.dim(" no · ") + r.st.bold("m") + r.st.dim(" no, with a message › "))
	r.midLine = true
	r.bell()
}

// AskMessage prompts for the message a "no" carries to the model.
func (r *Renderer) AskMessage() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(r.st.dim("message for the model (Enter to send): "))
}

// Typed echoes what the user types at a question.
func (r *Renderer) Typed(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.write(sanitizeTyped(s))
}

// sanitizeTyped keeps printable text and the backspace sequence.
func sanitizeTyped(s string) string {
	if s == "\b \b" || s == "\b \b\b \b" {
		return s
	}
	return sanitize(s)
}

// Answered ends an approval question with the answer given.
func (r *Renderer) Answered(a agent.Approval) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch a {
	case agent.ApproveOnce:
		r.write(r.st.green("yes"))
	case agent.ApproveSession:
		r.write(r.st.green("yes, for this session"))
	case agent.ApproveAlways:
		r.write(r.st.green("yes, and don't ask again"))
	default:
		r.write(r.st.red("no"))
	}
	r.write("\n")
	r.midLine = false
}
