package tools

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// SummaryMaxRunes bounds a call summary.
const SummaryMaxRunes = 80

// Summarizer is implemented by tools that say in a few words what a call
// does: the part in parentheses of read_file(main.go:10-14).
type Summarizer interface {
	Summary(input json.RawMessage) string
}

// Subjecter is implemented by tools whose approval question is about one
// exact operation: the command, path or URL the user is asked to allow.
type Subjecter interface {
	Subject(input json.RawMessage) string
}

// Previewer is implemented by tools that can show the change a call would
// make (a unified diff) in the approval question.
type Previewer interface {
	Preview(env *Env, input json.RawMessage) string
}

// Summarize renders a call of t (named name; t may be nil for a tool not
// in the registry) as one short line for UIs and receipts, e.g.
// read_file(main.go) or run_shell(go test ./...). It never fails: bad input
// still yields the tool name. Tools say it themselves (Summarizer); others
// show their first string field.
func Summarize(t Tool, name string, input json.RawMessage) string {
	var arg string
	if s, ok := t.(Summarizer); ok {
		arg = s.Summary(input)
	} else {
		arg = Guess(input)
	}
	return name + "(" + shorten(oneLine(arg), SummaryMaxRunes) + ")"
}

// SubjectOf is the exact operation an approval of a call of t is about.
// Tools say it themselves (Subjecter); for others it is the first of the
// usual fields (command, file_path, path, url, pattern, plan), else the
// input itself.
func SubjectOf(t Tool, input json.RawMessage) string {
	if s, ok := t.(Subjecter); ok {
		if sub := s.Subject(input); sub != "" {
			return sub
		}
	}
	return GuessSubject(input)
}

// Guess is the summary of a call whose input hew knows nothing about (an
// MCP server's tool): the first usual field, else the first string field,
// else compact JSON.
func Guess(input json.RawMessage) string { return firstStringField(fields(input)) }

// GuessSubject is the approval subject of a call whose input hew knows
// nothing about: the first of the usual fields (command, file_path, path,
// url, pattern, plan), else the input itself.
func GuessSubject(input json.RawMessage) string {
	m := fields(input)
	for _, k := range []string{"command", "file_path", "path", "url", "pattern", "plan"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return string(input)
}

// PreviewOf is the change a call of t would make, or "" (Previewer).
func PreviewOf(t Tool, env *Env, input json.RawMessage) string {
	if p, ok := t.(Previewer); ok {
		return p.Preview(env, input)
	}
	return ""
}

// fields decodes a call's input object; bad input is an empty map.
func fields(input json.RawMessage) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(input, &m)
	return m
}

// Field is the string field key of a call's input ("" when absent), for
// Summary and Subject methods.
func Field(input json.RawMessage, key string) string {
	s, _ := fields(input)[key].(string)
	return s
}

// SummaryParts joins the non-empty parts of a summary with spaces.
func SummaryParts(parts ...string) string { return joinNonEmpty(parts...) }

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

// usualFields name what a call is about in most tools' inputs; a tool
// that does not summarize itself (an MCP tool, or a front-end without the
// registry) is shown by the first of them it has.
var usualFields = []string{"file_path", "command", "url", "pattern", "query", "path", "name"}

// firstStringField picks a representative argument of an unknown tool:
// the first usual field, else the first string field in key order, else
// compact JSON.
func firstStringField(m map[string]any) string {
	for _, k := range usualFields {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
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
