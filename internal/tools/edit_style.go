package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// normText is a normalized string with, for every byte, the span of the
// original text it stands for: own/ownEnd is the character itself, st/en
// also covers dropped characters attached to it.
type normText struct {
	s           string
	own, ownEnd []int
	st, en      []int
}

func isNBSP(r rune) bool { return r == '\u00a0' || r == '\u202f' || r == '\u2007' }

func isHSpace(r rune, f normFlags) bool { return r == ' ' || r == '\t' || (f.nbsp && isNBSP(r)) }

func quoteOf(r rune) (byte, bool) {
	switch r {
	case '‘', '’', '‚', '‛', '′':
		return '\'', true
	case '“', '”', '„', '‟', '″':
		return '"', true
	}
	return 0, false
}

// normalize applies the comparisons selected by f. Dropped characters (CR
// before LF, trailing blanks, indentation) attach to the next kept
// character, or to the last one at the end of the text.
func normalize(s string, f normFlags) normText {
	t := normText{own: make([]int, 0, len(s)), ownEnd: make([]int, 0, len(s)), st: make([]int, 0, len(s)), en: make([]int, 0, len(s))}
	out := make([]byte, 0, len(s))
	pending := -1
	emit := func(b byte, start, end int) {
		st := start
		if pending >= 0 {
			st = pending
			pending = -1
		}
		out = append(out, b)
		t.own, t.ownEnd = append(t.own, start), append(t.ownEnd, end)
		t.st, t.en = append(t.st, st), append(t.en, end)
	}
	drop := func(i int) {
		if pending < 0 {
			pending = i
		}
	}
	lineStart := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if f.indent && lineStart && isHSpace(r, f) {
			drop(i)
			i += size
			continue
		}
		lineStart = false
		if f.crlf && r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			drop(i)
			i++
			continue
		}
		if f.trailing && isHSpace(r, f) {
			j := i
			for j < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if !isHSpace(r2, f) {
					break
				}
				j += sz
			}
			if j == len(s) || s[j] == '\n' || (f.crlf && s[j] == '\r' && j+1 < len(s) && s[j+1] == '\n') {
				drop(i)
				i = j
				continue
			}
			for k := i; k < j; { // a blank run inside the line: keep it
				r2, sz := utf8.DecodeRuneInString(s[k:])
				if isNBSP(r2) {
					emit(' ', k, k+sz)
				} else {
					emit(s[k], k, k+1)
				}
				k += sz
			}
			i = j
			continue
		}
		switch q, isQ := quoteOf(r); {
		case f.quotes && isQ:
			emit(q, i, i+size)
		case f.nbsp && isNBSP(r):
			emit(' ', i, i+size)
		default:
			for k := 0; k < size; k++ {
				emit(s[i+k], i+k, i+k+1)
			}
		}
		if r == '\n' {
			lineStart = true
		}
		i += size
	}
	if pending >= 0 && len(t.en) > 0 {
		t.en[len(t.en)-1] = len(s)
	}
	t.s = string(out)
	return t
}

// transferStyle builds the replacement for content[start:end], which
// matched old (exactly when f is zero, else after normalizing with f).
// Lines are compared after the same normalization, so a line of new that
// equals its line of old keeps the file's exact bytes; only changed and
// added lines are written, converted to the file's quotes and indentation
// and given the line ending of the region line they replace or follow (a
// mixed file keeps each region's own endings). ok=false refuses the match
// (indentation that cannot be mapped without changing nesting).
func transferStyle(content string, start, end int, old, new string, f normFlags) (string, bool) {
	region := content[start:end]
	st := fileStyle{f: f}
	if f.quotes {
		st.curlySingle = strings.ContainsAny(region, "‘’") && !strings.ContainsAny(old, "‘’")
		st.curlyDouble = strings.ContainsAny(region, "“”") && !strings.ContainsAny(old, "“”")
		st.straighten = strings.ContainsAny(old, "‘’“”") && !strings.ContainsAny(region, "‘’“”")
	}
	st.nbspOK = strings.ContainsAny(region, "\u00a0\u202f\u2007")
	oLines := splitLines(old)
	rLines := splitLines(region)
	nLines := splitLines(new)
	defEOL := eolNear(content, start, end)
	if len(oLines) != len(rLines) {
		var b strings.Builder
		for _, l := range nLines {
			b.WriteString(st.apply(l.body))
			if l.eol != "" {
				b.WriteString(defEOL)
			}
		}
		return b.String(), true
	}
	if f.indent {
		ob, rb := make([]string, len(oLines)), make([]string, len(rLines))
		for i := range oLines {
			ob[i], rb[i] = oLines[i].body, rLines[i].body
		}
		w, ok := indentWidth(ob, rb)
		if !ok {
			return "", false
		}
		st.width = w
		st.tabs = strings.Contains(leadingBlanks(region), "\t") || fileIndentsWithTabs(content)
	}
	key := func(l string) string {
		if f.indent {
			ind := leadingBlanks(l)
			g := f
			g.indent = false
			return fmt.Sprint(columns(ind, max(st.width, 1))) + "|" + normalize(l[len(ind):], g).s
		}
		return normalize(l, f).s
	}
	ok, nk := make([]string, len(oLines)), make([]string, len(nLines))
	for i, l := range oLines {
		ok[i] = key(l.body)
	}
	for i, l := range nLines {
		nk[i] = key(l.body)
	}
	var b strings.Builder
	lastEOL := ""
	eolFor := func(i int) string { // the ending of region line i, or the nearest one
		if i < len(rLines) && rLines[i].eol != "" {
			return rLines[i].eol
		}
		if lastEOL != "" {
			return lastEOL
		}
		return defEOL
	}
	oi := 0
	for _, m := range alignLines(ok, nk) {
		switch {
		case m.o >= 0 && m.n >= 0: // unchanged: the file's own line
			b.WriteString(rLines[m.o].body)
			if nLines[m.n].eol != "" {
				lastEOL = eolFor(m.o)
				b.WriteString(lastEOL)
			}
			oi = m.o + 1
		case m.n >= 0: // added or changed line of new
			b.WriteString(st.apply(nLines[m.n].body))
			if nLines[m.n].eol != "" {
				lastEOL = eolFor(oi)
				b.WriteString(lastEOL)
			}
		default: // a line of old that new drops
			if rLines[m.o].eol != "" {
				lastEOL = rLines[m.o].eol
			}
			oi = m.o + 1
		}
	}
	return b.String(), true
}

// line is one line of text without and with its ending.
type line struct{ body, eol string }

// splitLines splits s after each "\n"; eol is "\n", "\r\n" or "" (last line).
func splitLines(s string) []line {
	var out []line
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, line{body: s})
			break
		}
		body, eol := s[:i], "\n"
		if strings.HasSuffix(body, "\r") {
			body, eol = body[:len(body)-1], "\r\n"
		}
		out = append(out, line{body: body, eol: eol})
		s = s[i+1:]
	}
	return out
}

// eolNear is the line ending used around content[start:end]: the region's
// own last ending, else the ending of the line the region sits on, else
// the one before it; "\n" in a file without line breaks.
func eolNear(content string, start, end int) string {
	ending := func(nl int) string {
		if nl > 0 && content[nl-1] == '\r' {
			return "\r\n"
		}
		return "\n"
	}
	if i := strings.LastIndexByte(content[start:end], '\n'); i >= 0 {
		return ending(start + i)
	}
	if i := strings.IndexByte(content[end:], '\n'); i >= 0 {
		return ending(end + i)
	}
	if i := strings.LastIndexByte(content[:start], '\n'); i >= 0 {
		return ending(i)
	}
	return "\n"
}

// lineMatch pairs line o of old with line n of new; -1 means none.
type lineMatch struct{ o, n int }

// alignLines is a line diff of a and b (longest common subsequence, after
// trimming the common head and tail); inputs too large for the table get
// head and tail only.
func alignLines(a, b []string) []lineMatch {
	var out []lineMatch
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		out = append(out, lineMatch{p, p})
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) <= 1<<20 {
		n, m := len(ma), len(mb)
		dp := make([][]int32, n+1)
		for i := range dp {
			dp[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					dp[i][j] = dp[i+1][j+1] + 1
				} else {
					dp[i][j] = max(dp[i+1][j], dp[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && ma[i] == mb[j]:
				out = append(out, lineMatch{p + i, p + j})
				i, j = i+1, j+1
			case j < m && (i == n || dp[i][j+1] >= dp[i+1][j]):
				// delete old lines before adding new ones at the same place
				if i < n && dp[i+1][j] == dp[i][j+1] {
					out = append(out, lineMatch{p + i, -1})
					i++
					continue
				}
				out = append(out, lineMatch{-1, p + j})
				j++
			default:
				out = append(out, lineMatch{p + i, -1})
				i++
			}
		}
	} else {
		for i := range ma {
			out = append(out, lineMatch{p + i, -1})
		}
		for j := range mb {
			out = append(out, lineMatch{-1, p + j})
		}
	}
	for k := 0; k < s; k++ {
		out = append(out, lineMatch{len(a) - s + k, len(b) - s + k})
	}
	return out
}

type fileStyle struct {
	f                        normFlags
	curlySingle, curlyDouble bool
	straighten               bool
	nbspOK                   bool
	width                    int
	tabs                     bool
}

// apply converts text the model wrote into the file's conventions.
func (s fileStyle) apply(text string) string {
	if s.f.quotes {
		switch {
		case s.straighten:
			text = strings.NewReplacer("‘", "'", "’", "'", "“", `"`, "”", `"`).Replace(text)
		case s.curlySingle || s.curlyDouble:
			text = curlify(text, s.curlySingle, s.curlyDouble)
		}
	}
	if s.f.nbsp && !s.nbspOK {
		text = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2007", " ").Replace(text)
	}
	if s.f.indent && s.width > 0 {
		lines := strings.SplitAfter(text, "\n")
		for i, l := range lines {
			ind := leadingBlanks(l)
			if ind == "" {
				continue
			}
			cols := columns(ind, s.width)
			var nb string
			if s.tabs {
				nb = strings.Repeat("\t", cols/s.width) + strings.Repeat(" ", cols%s.width)
			} else {
				nb = strings.Repeat(" ", cols)
			}
			lines[i] = nb + l[len(ind):]
		}
		text = strings.Join(lines, "")
	}
	return text
}

// curlify turns straight quotes into typographic ones: opening after
// whitespace or an opening bracket, closing (or apostrophe) otherwise.
func curlify(text string, single, double bool) string {
	var b strings.Builder
	prev := rune(' ')
	for _, r := range text {
		open := prev == ' ' || prev == '\t' || prev == '\n' || prev == '(' || prev == '[' || prev == '{' || prev == '\u00a0'
		switch {
		case r == '\'' && single && open:
			b.WriteRune('‘')
		case r == '\'' && single:
			b.WriteRune('’')
		case r == '"' && double && open:
			b.WriteRune('“')
		case r == '"' && double:
			b.WriteRune('”')
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

func leadingBlanks(l string) string {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return l[:i]
}

// columns is the display width of an indentation with tab stops of w.
func columns(ind string, w int) int {
	c := 0
	for _, r := range ind {
		if r == '\t' {
			c += w - c%w
		} else {
			c++
		}
	}
	return c
}

// indentWidth finds a tab width under which every line of old is indented
// exactly like the matching line of the file, so a tolerant indentation
// match cannot shift code to another nesting level.
func indentWidth(oLines, rLines []string) (int, bool) {
	for _, w := range []int{4, 8, 2, 3, 1} {
		ok := true
		for i := range oLines {
			if strings.TrimSpace(oLines[i]) == "" || strings.TrimSpace(rLines[i]) == "" {
				continue
			}
			if i == 0 && leadingBlanks(oLines[0]) == "" {
				continue // the match may start mid-line
			}
			if columns(leadingBlanks(oLines[i]), w) != columns(leadingBlanks(rLines[i]), w) {
				ok = false
				break
			}
		}
		if ok {
			return w, true
		}
	}
	return 0, false
}

// fileIndentsWithTabs reports whether most indented lines start with a tab.
func fileIndentsWithTabs(content string) bool {
	tabs, spaces := 0, 0
	for _, l := range strings.Split(content, "\n") {
		switch {
		case strings.HasPrefix(l, "\t"):
			tabs++
		case strings.HasPrefix(l, "  "):
			spaces++
		}
	}
	return tabs > spaces
}
