package render

import (
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

// Transcript redraws the end of a conversation, as when a session is
// resumed: the last exchanges (from the exchanges-th last user message
// on), user messages after a dim prompt, assistant text as Markdown, each
// tool call as its one-line form and a failed result's first line.
// Tool results themselves are not shown (Ctrl+O shows the last one live).
// It returns how many earlier messages were left out.
func (r *Renderer) Transcript(msgs []llm.Message, exchanges int) (skipped int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pause()
	start, seen := 0, 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser && userText(msgs[i]) != "" {
			seen++
			start = i
			if seen == exchanges {
				break
			}
		}
	}
	width := r.s.Width()
	for _, m := range msgs[start:] {
		switch m.Role {
		case llm.RoleUser:
			if t := userText(m); t != "" {
				r.line("")
				lines := strings.Split(t, "\n")
				for i, l := range lines {
					prefix := "  "
					if i == 0 {
						prefix = "› "
					}
					if i == transcriptUserLines && len(lines) > i+1 {
						r.line(r.st.dim(fmt.Sprintf("  … +%d lines", len(lines)-i)))
						break
					}
					r.line(r.st.dim(prefix + Truncate(sanitize(l), width-2)))
				}
			}
			for _, b := range m.Content {
				if b.Type == llm.BlockToolResult && b.IsError {
					r.line(r.st.dim(resultFirst) + r.st.red(Truncate(oneLine(sanitize(b.Content)), width-6)))
				}
			}
		case llm.RoleAssistant:
			for _, b := range m.Content {
				switch b.Type {
				case llm.BlockText:
					var md mdState
					for _, l := range strings.Split(strings.TrimRight(sanitize(b.Text), "\n"), "\n") {
						for _, row := range md.feed(l, r.st, width) {
							r.line(row)
						}
					}
					for _, row := range md.flush(r.st, width) {
						r.line(row)
					}
				case llm.BlockToolUse:
					r.line(r.st.blue("●") + " " + r.callLine(b.Name, "", b.Input))
				}
			}
		}
	}
	return start
}

// transcriptUserLines is how many lines of a long user message (a paste,
// an attached file) a transcript shows.
const transcriptUserLines = 4

// userText is what the user typed in m (not tool results).
func userText(m llm.Message) string {
	var parts []string
	for _, b := range m.Content {
		if t := strings.TrimSpace(withoutReminders(b.Text)); b.Type == llm.BlockText && t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

// withoutReminders drops the <system-reminder> blocks hew adds to user
// messages for the model (date, context notes): the user never typed them.
func withoutReminders(s string) string {
	for {
		i := strings.Index(s, "<system-reminder>")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "</system-reminder>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</system-reminder>"):]
	}
}
