package tools

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// SummaryMaxRunes bounds a call summary.
const SummaryMaxRunes = 80

// Summarize renders a tool call as one short line for UIs and receipts,
// e.g. read_file(main.go) or run_shell(go test ./...). It never fails: bad
// input still yields the tool name.
func Summarize(name string, input json.RawMessage) string {
	var m map[string]any
	_ = json.Unmarshal(input, &m)
	str := func(k string) string {
		s, _ := m[k].(string)
		return s
	}
	var arg string
	switch name {
	case "read_file":
		arg = str("file_path")
		if off, ok := m["offset"].(float64); ok {
			arg += fmt.Sprintf(":%d", int(off))
			if lim, ok := m["limit"].(float64); ok {
				arg += fmt.Sprintf("-%d", int(off)+int(lim)-1)
			}
		}
	case "write_file", "edit_file":
		arg = str("file_path")
	case "list_files":
		arg = joinNonEmpty(str("pattern"), inPath(str("path")))
	case "grep_search":
		arg = joinNonEmpty(str("pattern"), inPath(str("path")), str("glob"))
	case "run_shell":
		arg = str("command")
	case "web_fetch":
		arg = str("url")
	case "todo_write":
		if l, ok := m["todos"].([]any); ok {
			arg = fmt.Sprintf("%d items", len(l))
		}
	case "tool_search":
		arg = str("query")
	case "skill":
		arg = joinNonEmpty(str("name"), str("arguments"))
	case "agent":
		arg = joinNonEmpty(str("subagent_type"), str("description"))
	case "exit_plan_mode":
		arg = firstLine(str("plan"))
	case "schedule_wakeup":
		if d, ok := m["delay_seconds"].(float64); ok {
			arg = fmt.Sprintf("%ds", int(d))
		}
		arg = joinNonEmpty(arg, str("reason"))
	default:
		arg = firstStringField(m)
	}
	return name + "(" + shorten(oneLine(arg), SummaryMaxRunes) + ")"
}

func inPath(p string) string {
	if p == "" {
		return ""
	}
	return "in " + p
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

// firstStringField picks a representative argument of an unknown tool:
// the first string field in key order, else compact JSON.
func firstStringField(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// oneLine folds newlines and tabs so the summary stays on one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\n", " ⏎ ")
	return strings.ReplaceAll(s, "\t", " ")
}

// shorten cuts s to at most n runes, ending with an ellipsis when cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
