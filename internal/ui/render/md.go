package render

import (
	"strings"
)

// mdState renders Markdown one finished line at a time, the way a model's
// answer streams in: prose is word-wrapped to the terminal (never inside a
// grapheme, CJK broken between characters), headings, emphasis, inline
// code, links (text and URL), lists, quotes and rules are styled, fenced
// code is highlighted without its fences, and a table is held until its
// last row and then drawn aligned. With colour off only the structure
// changes (bullets, rules, tables, wrapping); fences and other markers stay
// so nothing is lost.
type mdState struct {
	fence string   // the opening fence ("```" or "~~~") while inside a code block
	lang  string   // the code block's language, for highlighting
	table []string // rows of a table being collected
}

// holds reports whether a line starting like s is held back rather than
// echoed raw while it streams (tables and code are drawn whole).
func (m *mdState) holds(s string) bool {
	t := strings.TrimLeft(s, " ")
	return m.fence != "" || len(m.table) > 0 || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}

// feed renders one finished line and returns the rows to print now: none
// while a table is being collected, the whole table when it ends.
func (m *mdState) feed(s string, st styles, width int) []string {
	var out []string
	if m.fence == "" && isTableRow(s) {
		m.table = append(m.table, s)
		return nil
	}
	if len(m.table) > 0 {
		out = m.flush(st, width)
	}
	return append(out, m.line(s, st, width)...)
}

// flush draws a table still being collected (at the end of the text).
func (m *mdState) flush(st styles, width int) []string {
	rows := m.table
	m.table = nil
	if len(rows) == 0 {
		return nil
	}
	if t, ok := renderTable(rows, st, width); ok {
		return t
	}
	var out []string
	for _, r := range rows { // not a table after all: show it as text
		out = append(out, m.line(r, st, width)...)
	}
	return out
}

// line renders one line of text outside a table.
func (m *mdState) line(s string, st styles, width int) []string {
	trimmed := strings.TrimLeft(s, " ")
	if m.fence != "" {
		if strings.HasPrefix(trimmed, m.fence) && strings.TrimSpace(strings.TrimLeft(trimmed, m.fence[:1])) == "" {
			m.fence, m.lang = "", ""
			if st.on {
				return nil
			}
			return []string{s}
		}
		if st.on {
			return []string{highlight(s, m.lang, st)}
		}
		return []string{s}
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			m.fence = f
			m.lang = strings.ToLower(strings.TrimSpace(strings.TrimLeft(trimmed, f[:1])))
			if st.on {
				return nil
			}
			return []string{s}
		}
	}
	indent := s[:len(s)-len(trimmed)]
	iw := len(indent)
	wrap := func(first string, firstW int, body, hang string, hangW int) []string {
		return wrapText(body, width, first, firstW, hang, hangW)
	}
	if level, text, ok := heading(trimmed); ok {
		if !st.on {
			return wrap(indent, iw, trimmed, indent, iw)
		}
		h := st.bold(inline(text, st))
		if level == 1 {
			h = st.underline(h)
		}
		return wrap(indent, iw, st.magenta(h), indent, iw)
	}
	if isRule(trimmed) {
		n := min(width, 40)
		return []string{indent + st.dim(strings.Repeat("─", max(n-iw, 3)))}
	}
	if rest, ok := strings.CutPrefix(trimmed, ">"); ok {
		rest = strings.TrimPrefix(rest, " ")
		bar := indent + st.dim("│ ")
		return wrap(bar, iw+2, st.italic(inline(rest, st)), bar, iw+2)
	}
	if len(trimmed) >= 2 && strings.ContainsRune("-*+", rune(trimmed[0])) && trimmed[1] == ' ' {
		rest := strings.TrimLeft(trimmed[2:], " ")
		hang := strings.Repeat(" ", iw+2)
		switch {
		case strings.HasPrefix(rest, "[ ] "):
			return wrap(indent+"☐ ", iw+2, inline(rest[4:], st), hang, iw+2)
		case strings.HasPrefix(rest, "[x] "), strings.HasPrefix(rest, "[X] "):
			return wrap(indent+st.green("☒")+" ", iw+2, inline(rest[4:], st), hang, iw+2)
		}
		return wrap(indent+st.cyan("•")+" ", iw+2, inline(rest, st), hang, iw+2)
	}
	if n := orderedPrefix(trimmed); n > 0 {
		return wrap(indent+st.cyan(trimmed[:n]), iw+n, inline(trimmed[n:], st), strings.Repeat(" ", iw+n), iw+n)
	}
	if trimmed == "" {
		return []string{""}
	}
	return wrap(indent, iw, inline(trimmed, st), indent, iw)
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
	if !strings.ContainsAny(s, "`*_[") {
		return s
	}
	if !st.on {
		return plainLinks(s)
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

// plainLinks writes [text](url) as "text (url)" when there is no colour to
// mark the link; everything else stays as written.
func plainLinks(s string) string {
	if !strings.Contains(s, "](") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '[' {
			if j := strings.Index(s[i:], "]("); j > 0 {
				if k := strings.IndexByte(s[i+j+2:], ')'); k >= 0 {
					text, url := s[i+1:i+j], s[i+j+2:i+j+2+k]
					b.WriteString(text)
					if url != text {
						b.WriteString(" (" + url + ")")
					}
					i += j + 2 + k + 1
					continue
				}
			}
		}
		b.WriteByte(s[i])
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
