package render

import (
	"strings"
)

// mdState renders Markdown one finished line at a time, remembering only
// whether a fenced code block is open. It is deliberately small: headings,
// emphasis, inline code, code blocks, lists, quotes and rules — enough for
// a model's answer in a line-based terminal, with no layout of its own.
type mdState struct {
	fence string // the opening fence ("```" or "~~~") while inside a code block
}

// line renders one line. Without colour only the structure changes
// (bullets, rules, task boxes); markers stay so nothing is lost.
func (m *mdState) line(s string, st styles, width int) string {
	trimmed := strings.TrimLeft(s, " ")
	if m.fence != "" {
		if strings.HasPrefix(trimmed, m.fence) && strings.TrimSpace(strings.TrimLeft(trimmed, m.fence[:1])) == "" {
			m.fence = ""
			return st.dim(s)
		}
		return st.cyan(s)
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			m.fence = f
			return st.dim(s)
		}
	}
	indent := s[:len(s)-len(trimmed)]
	if level, text, ok := heading(trimmed); ok {
		if !st.on {
			return s
		}
		h := st.bold(inline(text, st))
		if level == 1 {
			h = st.underline(h)
		}
		return indent + st.magenta(h)
	}
	if isRule(trimmed) {
		n := min(width, 40)
		return indent + st.dim(strings.Repeat("─", max(n-len(indent), 3)))
	}
	if rest, ok := strings.CutPrefix(trimmed, ">"); ok {
		rest = strings.TrimPrefix(rest, " ")
		return indent + st.dim("│ ") + st.italic(inline(rest, st))
	}
	if len(trimmed) >= 2 && strings.ContainsRune("-*+", rune(trimmed[0])) && trimmed[1] == ' ' {
		rest := strings.TrimLeft(trimmed[2:], " ")
		switch {
		case strings.HasPrefix(rest, "[ ] "):
			return indent + "☐ " + inline(rest[4:], st)
		case strings.HasPrefix(rest, "[x] "), strings.HasPrefix(rest, "[X] "):
			return indent + st.green("☒") + " " + inline(rest[4:], st)
		}
		return indent + st.cyan("•") + " " + inline(rest, st)
	}
	if n := orderedPrefix(trimmed); n > 0 {
		return indent + st.cyan(trimmed[:n]) + inline(trimmed[n:], st)
	}
	return indent + inline(trimmed, st)
}

// heading recognises "# text" through "###### text".
func heading(s string) (level int, text string, ok bool) {
	for level < len(s) && level < 7 && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level >= len(s) || s[level] != ' ' {
		return 0, "", false
	}
	return level, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[level:]), "#")), true
}

func isRule(s string) bool {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if len(s) < 3 {
		return false
	}
	c := s[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	return strings.Count(s, string(c)) == len(s)
}

// orderedPrefix returns the length of "12. " or "3) " at the start of s.
func orderedPrefix(s string) int {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(s) || (s[i] != '.' && s[i] != ')') || s[i+1] != ' ' {
		return 0
	}
	return i + 2
}

// inline styles `code`, **bold**, __bold__, *italic*, _italic_ and
// [links](url). Without colour the text is returned unchanged.
func inline(s string, st styles) string {
	if !st.on || !strings.ContainsAny(s, "`*_[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			tick := s[i : i+n]
			if j := strings.Index(s[i+n:], tick); j >= 0 {
				b.WriteString(st.cyan(s[i+n : i+n+j]))
				i += n + j + n
				continue
			}
			b.WriteString(tick)
			i += n
			continue
		case (c == '*' || c == '_') && i+1 < len(s) && s[i+1] == c:
			delim := s[i : i+2]
			if j := strings.Index(s[i+2:], delim); j > 0 && s[i+2] != ' ' && s[i+1+j] != ' ' && (c == '*' || wordEdge(s, i, i+2+j+2)) {
				b.WriteString(st.bold(inline(s[i+2:i+2+j], st)))
				i += 2 + j + 2
				continue
			}
		case c == '*' || c == '_':
			if j := strings.IndexByte(s[i+1:], c); j > 0 && s[i+1] != ' ' && s[i+j] != ' ' && wordEdge(s, i, i+1+j+1) {
				b.WriteString(st.italic(s[i+1 : i+1+j]))
				i += 1 + j + 1
				continue
			}
		case c == '[':
			if j := strings.Index(s[i:], "]("); j > 0 {
				if k := strings.IndexByte(s[i+j+2:], ')'); k >= 0 {
					text, url := s[i+1:i+j], s[i+j+2:i+j+2+k]
					b.WriteString(st.underline(st.blue(text)))
					if url != text {
						b.WriteString(st.dim(" (" + url + ")"))
					}
					i += j + 2 + k + 1
					continue
				}
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// wordEdge reports whether the span [start,end) of s is not glued to
// letters or digits on either side, so snake_case and 2*3*4 stay literal.
func wordEdge(s string, start, end int) bool {
	isWord := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	if start > 0 && isWord(s[start-1]) {
		return false
	}
	if end < len(s) && isWord(s[end]) {
		return false
	}
	return true
}
