// Package frontmatter reads the YAML block at the top of a Markdown file
// (SKILL.md, agent roles) leniently: hand-written frontmatter that is not
// valid YAML still yields its "key: value" lines.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrUnclosed is a frontmatter block opened with --- and never closed.
var ErrUnclosed = errors.New("the frontmatter opened with --- on the first line is never closed with a --- line")

// Split separates the YAML block between the first two "---"
// lines from the Markdown body. No opening line means no frontmatter.
func Split(data []byte) (front, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---")) {
		return nil, data, nil
	}
	rest := data[3:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 || strings.TrimSpace(string(rest[:nl])) != "" {
		return nil, data, nil // "----" or "---text": an ordinary first line
	}
	rest = rest[nl+1:]
	for off := 0; off <= len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimSpace(string(line)) == "---" {
			if end < 0 {
				return rest[:off], nil, nil
			}
			return rest[:off], rest[off+end+1:], nil
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return nil, nil, ErrUnclosed
}

// Field is one frontmatter value: a scalar, or a list (allowed-tools).
type Field struct {
	// Text is the value as one string (a list joined with ", ").
	Text string
	// List holds the items when the value was a list.
	List []string
	// Set is true when the key was present.
	Set bool
}

// Parse reads the block as YAML. Hand-written frontmatter is
// often not valid YAML (an unquoted colon in a description, a tab), so on
// a YAML error it reads "key: value" lines instead, with indented "- item"
// lines as lists and other indented lines continuing the value before.
func Parse(front []byte) map[string]Field {
	var m map[string]any
	if err := yaml.Unmarshal(front, &m); err == nil {
		out := make(map[string]Field, len(m))
		for k, v := range m {
			out[strings.ToLower(strings.TrimSpace(k))] = toField(v)
		}
		return out
	}
	return parseLines(front)
}

func toField(v any) Field {
	switch x := v.(type) {
	case nil:
		return Field{Set: true}
	case []any:
		f := Field{Set: true}
		for _, e := range x {
			f.List = append(f.List, strings.TrimSpace(fmt.Sprint(e)))
		}
		f.Text = strings.Join(f.List, ", ")
		return f
	case string:
		return Field{Text: strings.TrimSpace(x), Set: true}
	}
	return Field{Text: strings.TrimSpace(fmt.Sprint(v)), Set: true}
}

func parseLines(front []byte) map[string]Field {
	out := map[string]Field{}
	key := ""
	for _, raw := range strings.Split(string(front), "\n") {
		line := strings.TrimRight(raw, " \t\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		if indented || strings.HasPrefix(trimmed, "- ") {
			if key == "" {
				continue
			}
			f := out[key]
			if item, ok := strings.CutPrefix(trimmed, "- "); ok {
				f.List = append(f.List, unquote(item))
				f.Text = strings.Join(f.List, ", ")
			} else if f.Text == "" {
				f.Text = trimmed
			} else {
				f.Text += " " + trimmed
			}
			out[key] = f
			continue
		}
		k, v, ok := strings.Cut(trimmed, ":")
		if !ok {
			key = ""
			continue
		}
		key = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		if v == "|" || v == ">" || v == "|-" || v == ">-" {
			v = ""
		}
		out[key] = Field{Text: unquote(v), Set: true}
	}
	return out
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// Bool reads a YAML-ish boolean; ok is false for anything else.
func Bool(s string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}
