package compact

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/tools"
)

// Tags of the blocks a compaction puts at the head of the history. They are
// recognised again when a later compaction folds the history once more.
const (
	tagSummary      = "<compacted-summary>\n"
	tagRequest      = "<user-request>\n"
	tagInstructions = "<project-instructions>\n"
	tagTodos        = "<todo-list>\n"
	tagReminder     = "<system-reminder>"
)

func wrap(tag, body string) string {
	return tag + body + "\n</" + strings.TrimSuffix(tag[1:], ">\n") + ">"
}

func unwrap(tag, text string) (string, bool) {
	if !strings.HasPrefix(text, tag) {
		return "", false
	}
	body := strings.TrimPrefix(text, tag)
	end := "\n</" + strings.TrimSuffix(tag[1:], ">\n") + ">"
	return strings.TrimSuffix(body, end), true
}

// summaryInstructions is the system prompt of the summary side request.
const summaryInstructions = `You are compacting the conversation of a coding agent so the work can continue in a fresh context window. Read the transcript and write a summary with exactly these sections:

## User requests and constraints
Every request, instruction and constraint the user gave, quoted verbatim, oldest first.
## Verified facts
Facts established by reading files, running commands or tests: paths, names, versions, results.
## Work done and files changed
What was done, and every file created or modified with a one-line note of the change.
## Errors met and how they were solved
## Open problems
## Next step
The single next action, consistent with the latest user request.

Keep file paths, identifiers, commands and error messages exact. Do not invent anything that is not in the transcript. Answer with the summary only.`

// splitPoint chooses where the kept, verbatim tail of h begins. A valid
// point is an assistant message or a user message that opens a turn (no tool
// results), so no tool_use/tool_result pair is ever cut. Whole recent turns
// are preferred; a turn too big for keep tokens is split at an assistant
// message. It returns 0 when nothing can be folded.
func splitPoint(h []llm.Message, keep int) int {
	suffix := make([]int, len(h)+1)
	for i := len(h) - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + EstimateMessage(h[i])
	}
	bestTurn, bestAsst, last := 0, 0, 0
	for k := 1; k < len(h); k++ {
		turnStart := h[k].Role == llm.RoleUser && !hasToolResults(h[k])
		asst := h[k].Role == llm.RoleAssistant
		if !turnStart && !asst {
			continue
		}
		last = k
		if suffix[k] <= keep {
			if turnStart && bestTurn == 0 {
				bestTurn = k
			}
			if asst && bestAsst == 0 {
				bestAsst = k
			}
		}
	}
	switch {
	case bestTurn > 0:
		return bestTurn
	case bestAsst > 0:
		return bestAsst
	}
	return last
}

// userRequests collects the user's own words from h, oldest first: text of
// user messages, minus system reminders and compaction blocks, plus the
// requests an earlier compaction carried forward.
func userRequests(h []llm.Message) []string {
	var out []string
	for _, m := range h {
		if m.Role != llm.RoleUser {
			continue
		}
		for _, b := range m.Content {
			if b.Type != llm.BlockText || strings.TrimSpace(b.Text) == "" {
				continue
			}
			if r, ok := unwrap(tagRequest, b.Text); ok {
				out = append(out, r)
				continue
			}
			if isInjected(b.Text) {
				continue
			}
			out = append(out, b.Text)
		}
	}
	return out
}

func isInjected(t string) bool {
	return strings.HasPrefix(t, tagSummary) || strings.HasPrefix(t, tagInstructions) ||
		strings.HasPrefix(t, tagTodos) || strings.HasPrefix(t, tagReminder) || strings.HasPrefix(t, omittedNote)
}

const omittedNote = "[Earlier user requests omitted to fit the window"

// selectRequests keeps the first request and as many of the latest as fit
// in budget tokens, so the original task and the current direction survive.
func selectRequests(all []string, budget int) (kept []string, omitted int) {
	if len(all) == 0 {
		return nil, 0
	}
	first := all[0]
	if EstimateText(first) > budget/2 {
		first = shorten(first, max(budget*2, 2048)) // about half the budget for ASCII text
	}
	used := EstimateText(first)
	var tail []string
	i := len(all) - 1
	for ; i >= 1; i-- {
		t := EstimateText(all[i])
		if used+t > budget {
			break
		}
		used += t
		tail = append(tail, all[i])
	}
	kept = append(kept, first)
	for j := len(tail) - 1; j >= 0; j-- {
		kept = append(kept, tail[j])
	}
	return kept, i
}

// carried is what every compaction puts back verbatim.
type carried struct {
	summary      string
	requests     []string
	omitted      int
	instructions string
	todos        string
}

// head renders the blocks that open the compacted history.
func (c carried) head() []llm.Block {
	intro := "This session was compacted: earlier messages were replaced by the summary below " +
		"(the full history stays in the session file). The user's requests follow verbatim.\n\n" + c.summary
	bl := []llm.Block{{Type: llm.BlockText, Text: wrap(tagSummary, intro)}}
	if c.omitted > 0 {
		bl = append(bl, llm.Block{Type: llm.BlockText, Text: fmt.Sprintf("%s: %d of them; see the summary.]", omittedNote, c.omitted)})
	}
	for _, r := range c.requests {
		bl = append(bl, llm.Block{Type: llm.BlockText, Text: wrap(tagRequest, r)})
	}
	if s := strings.TrimSpace(c.instructions); s != "" {
		bl = append(bl, llm.Block{Type: llm.BlockText, Text: wrap(tagInstructions, c.instructions)})
	}
	if s := strings.TrimSpace(c.todos); s != "" {
		bl = append(bl, llm.Block{Type: llm.BlockText, Text: wrap(tagTodos, c.todos)})
	}
	return bl
}

// assemble joins the carried head and the kept tail into a valid history:
// the head is merged into the kept tail's opening user message, or becomes
// a user message of its own before a kept assistant message.
func assemble(c carried, kept []llm.Message) []llm.Message {
	head := c.head()
	out := make([]llm.Message, 0, len(kept)+1)
	if len(kept) > 0 && kept[0].Role == llm.RoleUser {
		first := llm.Message{Role: llm.RoleUser, Content: append(head, kept[0].Content...)}
		return append(append(out, first), kept[1:]...)
	}
	out = append(out, llm.Message{Role: llm.RoleUser, Content: head})
	return append(out, kept...)
}

// previousSummary returns the summary text of an earlier compaction in h.
func previousSummary(h []llm.Message) string {
	for _, m := range h {
		for _, b := range m.Content {
			if s, ok := unwrap(tagSummary, b.Text); ok && b.Type == llm.BlockText {
				return s
			}
		}
	}
	return ""
}

// localSummary is the summary of a compaction made without a model: the
// earlier summary plus the files the folded part touched, as the calls'
// tools tell (tools.FileToucher).
func localSummary(old []llm.Message, tool func(string) (tools.Tool, bool)) string {
	var sb strings.Builder
	sb.WriteString("(Summary made locally, without the model: the older part of the conversation was trimmed to fit the context window.)\n")
	if prev := previousSummary(old); prev != "" {
		sb.WriteString("\nEarlier summary:\n")
		sb.WriteString(shorten(prev, 16000))
		sb.WriteString("\n")
	}
	changed, read := map[string]bool{}, map[string]bool{}
	for _, m := range old {
		for _, b := range m.ToolUses() {
			t, ok := tool(b.Name)
			if !ok {
				continue
			}
			f, ok := t.(tools.FileToucher)
			if !ok {
				continue
			}
			switch path, changes := f.Touches(b.Input); {
			case path == "":
			case changes:
				changed[path] = true
			default:
				read[path] = true
			}
		}
	}
	list := func(title string, set map[string]bool) {
		if len(set) == 0 {
			return
		}
		names := make([]string, 0, len(set))
		for k := range set {
			names = append(names, k)
		}
		sort.Strings(names)
		if len(names) > 100 {
			names = append(names[:100], fmt.Sprintf("… and %d more", len(names)-100))
		}
		sb.WriteString("\n" + title + ": " + strings.Join(names, ", ") + "\n")
	}
	list("Files changed", changed)
	list("Files read", read)
	return sb.String()
}

// Caps of the transcript a summary request shows the model, tried in order
// until the transcript fits its budget.
var transcriptCaps = []struct{ result, text int }{{4000, 16000}, {1000, 8000}, {200, 4000}, {0, 2000}}

// renderTranscript renders the part of the history to be folded as plain
// text for the summary request, never above budget tokens: tool results are
// cut first, then messages from the middle are left out.
func renderTranscript(old []llm.Message, budget int) string {
	var pieces []string
	for _, cp := range transcriptCaps {
		pieces = pieces[:0]
		total := 0
		for _, m := range old {
			p := renderMessage(m, cp.result, cp.text)
			pieces = append(pieces, p)
			total += EstimateText(p)
		}
		if total <= budget {
			return strings.Join(pieces, "")
		}
	}
	// Still too long: keep the start and the end, leave out the middle.
	var head, tail []string
	used, i, j := 0, 0, len(pieces)-1
	for i <= j {
		t := EstimateText(pieces[i])
		if used+t > budget/3 {
			break
		}
		head, used = append(head, pieces[i]), used+t
		i++
	}
	for j >= i {
		t := EstimateText(pieces[j])
		if used+t > budget-50 {
			break
		}
		tail, used = append(tail, pieces[j]), used+t
		j--
	}
	for a, b := 0, len(tail)-1; a < b; a, b = a+1, b-1 {
		tail[a], tail[b] = tail[b], tail[a]
	}
	mid := fmt.Sprintf("\n[… %d messages left out of this transcript …]\n\n", j-i+1)
	return strings.Join(head, "") + mid + strings.Join(tail, "")
}

func renderMessage(m llm.Message, resultCap, textCap int) string {
	var sb strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			if b.Text == "" || strings.HasPrefix(b.Text, tagInstructions) || strings.HasPrefix(b.Text, tagTodos) || strings.HasPrefix(b.Text, tagReminder) {
				continue
			}
			fmt.Fprintf(&sb, "[%s]: %s\n\n", m.Role, shortenMin(b.Text, textCap))
		case llm.BlockToolUse:
			fmt.Fprintf(&sb, "[assistant called %s]: %s\n\n", b.Name, shortenMin(string(b.Input), 600))
		case llm.BlockToolResult:
			status := "result"
			if b.IsError {
				status = "error"
			}
			if resultCap == 0 {
				fmt.Fprintf(&sb, "[tool %s: %d bytes left out]\n\n", status, len(b.Content))
				continue
			}
			fmt.Fprintf(&sb, "[tool %s]: %s\n\n", status, shortenMin(b.Content, resultCap))
		case llm.BlockImage:
			sb.WriteString("[image]\n\n")
		}
	}
	return sb.String()
}

// shortenMin is shorten with a floor that keeps the note from overflowing.
func shortenMin(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return shorten(s, max+100)
}

// errEmptySummary is returned when the model's summary has no text.
var errEmptySummary = errors.New("the summary request returned no text")

// summarize asks the model for a summary of old. The request is sized to
// fit: the transcript is cut locally before it is sent, so the summary
// request can never itself be too long for the window.
func (m *Manager) summarize(ctx context.Context, old []llm.Message, model string, lim limits, focus string) (string, error) {
	if m.opts.Provider == nil {
		return "", errors.New("no provider for summaries")
	}
	sys := llm.PurposeTag(llm.PurposeCompact) + "\n\n" + summaryInstructions
	if f := strings.TrimSpace(focus); f != "" {
		sys += "\n\nThe user asked the summary to focus on: " + f
	}
	out := min(8192, max(lim.maxOut, 1024))
	budget := lim.limit - out - EstimateText(sys) - 200
	budget = max(budget, 1000)
	prompt := "<transcript>\n" + renderTranscript(old, budget) + "</transcript>\n\nWrite the summary now."
	req := &llm.Request{
		Model:     model,
		System:    []llm.SystemBlock{{Text: sys}},
		Messages:  []llm.Message{llm.UserText(prompt)},
		MaxTokens: out,
		Purpose:   llm.PurposeCompact,
	}
	resp, err := m.opts.Provider.Stream(ctx, req, func(llm.Event) {})
	if err != nil {
		return "", fmt.Errorf("summary request: %w", err)
	}
	s := strings.TrimSpace(resp.Message.Text())
	if s == "" {
		return "", errEmptySummary
	}
	return s, nil
}
