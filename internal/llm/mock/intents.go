package mock

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

// The plain intents the offline mock understands, tried in order.
var (
	reReplace = regexp.MustCompile(`(?is)^\s*replace\s+"(.*?)"\s+with\s+"(.*?)"\s+in\s+(\S+?)[.!]?\s*$`)
	reRun     = regexp.MustCompile("(?is)^\\s*run\\s+`([^`]+)`")
	reRead    = regexp.MustCompile(`(?i)^\s*(?:read|show|cat)\s+(?:the\s+)?(?:file\s+)?(\S+?)[.!?]?\s*$`)
	reList    = regexp.MustCompile(`(?i)^\s*list\s+(?:the\s+)?files(?:\s+in\s+(\S+?))?[.!?]?\s*$`)
	reSearch  = regexp.MustCompile(`(?i)^\s*(?:search|grep|find)\s+(?:for\s+)?"?([^"]+?)"?[.!?]?\s*$`)
)

// helpText is the answer to anything the mock does not understand.
const helpText = "I am hew's offline mock model, so I only understand a few plain requests:\n" +
	"- read FILE\n- list files\n- search WORD\n- run `CMD`\n- replace \"A\" with \"B\" in FILE\n" +
	"Set a real provider (see `hew --help`) for anything else."

// intent is a parsed request: the calls to make, in order.
type intent struct {
	steps []llm.Block // Name and Input only
}

func parseIntent(text string) (intent, bool) {
	t := strings.TrimSpace(text)
	// The prompt builder may prepend a <system-reminder>; skip past it.
	if i := strings.LastIndex(t, "</system-reminder>"); i >= 0 {
		t = strings.TrimSpace(t[i+len("</system-reminder>"):])
	}
	// Only the first line is the request; callers may append more (a goal).
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	call := func(name string, in map[string]any) llm.Block {
		return llm.Block{Type: llm.BlockToolUse, Name: name, Input: mustJSON(in)}
	}
	if m := reReplace.FindStringSubmatch(t); m != nil {
		return intent{steps: []llm.Block{
			call("read_file", map[string]any{"file_path": m[3]}),
			call("edit_file", map[string]any{"file_path": m[3], "old_string": m[1], "new_string": m[2]}),
		}}, true
	}
	if m := reRun.FindStringSubmatch(t); m != nil {
		return intent{steps: []llm.Block{call("run_shell", map[string]any{"command": m[1]})}}, true
	}
	if m := reList.FindStringSubmatch(t); m != nil {
		in := map[string]any{}
		if m[1] != "" {
			in["path"] = m[1]
		}
		return intent{steps: []llm.Block{call("list_files", in)}}, true
	}
	if m := reRead.FindStringSubmatch(t); m != nil {
		return intent{steps: []llm.Block{call("read_file", map[string]any{"file_path": m[1]})}}, true
	}
	if m := reSearch.FindStringSubmatch(t); m != nil {
		return intent{steps: []llm.Block{call("grep_search", map[string]any{"pattern": m[1]})}}, true
	}
	return intent{}, false
}

// intentPlan answers from the history alone, so it needs no state: find the
// last user prompt, see which of its steps already ran, and do the next one
// or summarise.
func intentPlan(req *llm.Request) Plan {
	prompt, start := -1, 0
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == llm.RoleUser && strings.TrimSpace(m.Text()) != "" && !hasResults(m) {
			prompt, start = i, i+1
			break
		}
	}
	if prompt < 0 {
		return Plan{Text: helpText}
	}
	in, ok := parseIntent(req.Messages[prompt].Text())
	if !ok {
		return Plan{Text: helpText}
	}
	var results []llm.Block
	calls := map[string]llm.Block{}
	for _, m := range req.Messages[start:] {
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockToolUse:
				calls[b.ID] = b
			case llm.BlockToolResult:
				results = append(results, b)
			}
		}
	}
	answers := countAssistant(req.Messages) + 1
	done := len(results)
	failed := done > 0 && results[done-1].IsError
	if done < len(in.steps) && !failed {
		next := in.steps[done]
		if !offered(req, next.Name) {
			return Plan{Text: fmt.Sprintf("I would use the %s tool for this, but it is not available right now.", next.Name)}
		}
		next.ID = ToolID(answers, 1)
		return Plan{Text: stepText(next), ToolCalls: []llm.Block{next}}
	}
	return Plan{Text: summarise(results, calls)}
}

func hasResults(m llm.Message) bool {
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return true
		}
	}
	return false
}

func countAssistant(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}

// offered reports whether req lists the tool (no tool list means any).
func offered(req *llm.Request, name string) bool {
	if len(req.Tools) == 0 {
		return true
	}
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func stepText(c llm.Block) string {
	var in map[string]any
	_ = json.Unmarshal(c.Input, &in)
	switch c.Name {
	case "read_file":
		return fmt.Sprintf("I'll read %v.", in["file_path"])
	case "edit_file":
		return fmt.Sprintf("Now I'll make the replacement in %v.", in["file_path"])
	case "run_shell":
		return fmt.Sprintf("I'll run `%v`.", in["command"])
	case "list_files":
		return "I'll list the files."
	case "grep_search":
		return fmt.Sprintf("I'll search for %q.", in["pattern"])
	}
	return "I'll use " + c.Name + "."
}

// lineNumber matches the "   12\t" prefix read_file puts on each line.
var lineNumber = regexp.MustCompile(`^\s*\d+[\t→|]`)

// summarise reports the tool results in a few lines: which call, whether it
// worked, and the first line of what it returned.
func summarise(results []llm.Block, calls map[string]llm.Block) string {
	if len(results) == 0 {
		return "Nothing to do."
	}
	var b strings.Builder
	for _, r := range results {
		c := calls[r.ID]
		name := c.Name
		if name == "" {
			name = "tool"
		}
		status := "done"
		if r.IsError {
			status = "failed"
		}
		content := strings.TrimSpace(r.Content)
		lines := strings.Split(content, "\n")
		first := strings.TrimSpace(lineNumber.ReplaceAllString(lines[0], ""))
		if len([]rune(first)) > 200 {
			first = string([]rune(first)[:200]) + "…"
		}
		fmt.Fprintf(&b, "%s %s", name, status)
		if arg := mainArg(c.Input); arg != "" {
			fmt.Fprintf(&b, " (%s)", arg)
		}
		fmt.Fprintf(&b, ", %d line(s) of output", len(lines))
		if content != "" {
			fmt.Fprintf(&b, ": %s", first)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// mainArg is the argument that says what a call was about.
func mainArg(input json.RawMessage) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	for _, k := range []string{"file_path", "command", "pattern", "path"} {
		if v, ok := in[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}
