package render

import (
	"strings"

	"github.com/rivo/uniseg"
)

// nextToken splits the start of s into one escape sequence (zero width)
// or one grapheme cluster with its width.
func nextToken(s string) (tok string, w int, esc bool) {
	if s[0] == 0x1b && len(s) > 1 && s[1] == '[' {
		j := 2
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		return s[:min(j+1, len(s))], 0, true
	}
	g, _, _, _ := uniseg.FirstGraphemeClusterInString(s, -1)
	if g == "" {
		g = s[:1]
	}
	return g, Width(g), false
}

// breakAfter reports whether a line may break after g: after a space, and
// between wide (CJK) characters, which are written without spaces.
func breakAfter(g string, w int) bool { return g == " " || w == 2 }

// wrapText word-wraps s (which may hold SGR sequences) to width columns.
// The first row starts with first, the others with hang (both already
// styled; firstW and hangW are their widths). Lines break at spaces or
// between wide characters, never inside a grapheme cluster; a word longer
// than a row is cut at grapheme boundaries. Spaces at a break are dropped.
func wrapText(s string, width int, first string, firstW int, hang string, hangW int) []string {
	width = max(width, hangW+4, firstW+4)
	var rows []string
	var cur strings.Builder
	cur.WriteString(first)
	curW := firstW
	brk := -1 // byte offset in cur just after the last break chance
	rowStart := cur.Len()
	for len(s) > 0 {
		tok, w, esc := nextToken(s)
		s = s[len(tok):]
		if esc {
			cur.WriteString(tok)
			continue
		}
		if tok == " " && cur.Len() == rowStart && len(rows) > 0 {
			continue // no space at the start of a wrapped row
		}
		if curW+w > width {
			if tok == " " {
				rows = append(rows, strings.TrimRight(cur.String(), " "))
				cur.Reset()
				cur.WriteString(hang)
				curW, brk, rowStart = hangW, -1, cur.Len()
				continue
			}
			line := cur.String()
			carry := ""
			if brk > rowStart && brk < len(line) {
				carry, line = line[brk:], line[:brk]
			}
			rows = append(rows, strings.TrimRight(line, " "))
			carry = strings.TrimLeft(carry, " ")
			cur.Reset()
			cur.WriteString(hang)
			rowStart = cur.Len()
			cur.WriteString(carry)
			curW = hangW + Width(stripSGR(carry))
			brk = -1
		}
		cur.WriteString(tok)
		curW += w
		if breakAfter(tok, w) {
			brk = cur.Len()
		}
	}
	rows = append(rows, strings.TrimRight(cur.String(), " "))
	return rows
}

// stripSGR removes escape sequences, leaving what is drawn.
func stripSGR(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		tok, _, esc := nextToken(s)
		s = s[len(tok):]
		if !esc {
			b.WriteString(tok)
		}
	}
	return b.String()
}

// visibleWidth is the width of s once its escape sequences are removed.
func visibleWidth(s string) int { return Width(stripSGR(s)) }

// liveEcho shows a line of assistant text while it streams, word-wrapped
// as it goes, so that the finished line can be erased exactly (the rows
// are counted here, not guessed from the terminal's wrapping) and
// replaced by its styled form.
type liveEcho struct {
	row  strings.Builder // the raw text on the current screen row
	rowW int
	brk  int // byte offset in row after the last break chance, 0 for none
	rows int // rows completed above the current one
	used bool
}

// add writes t and returns what to send to the terminal.
func (e *liveEcho) add(t string, width int) string {
	var out strings.Builder
	width = max(width, 8)
	e.used = true
	for len(t) > 0 {
		g, w, esc := nextToken(t)
		t = t[len(g):]
		if esc {
			continue // raw text has none; a stray one is not drawn
		}
		if e.rowW+w > width {
			line := e.row.String()
			carry := ""
			if g != " " && e.brk > 0 && e.brk < len(line) {
				carry, line = line[e.brk:], line[:e.brk]
				out.WriteString("\r" + line + "\x1b[K")
			}
			out.WriteString("\r\n")
			e.rows++
			e.row.Reset()
			e.row.WriteString(carry)
			out.WriteString(carry)
			e.rowW, e.brk = Width(carry), 0
			if g == " " {
				continue
			}
		}
		e.row.WriteString(g)
		out.WriteString(g)
		e.rowW += w
		if breakAfter(g, w) {
			e.brk = e.row.Len()
		}
	}
	return out.String()
}

// erase returns what moves back to the start of the echoed line and
// clears it and everything below.
func (e *liveEcho) erase() string {
	if !e.used {
		return ""
	}
	s := "\r"
	if e.rows > 0 {
		s += "\x1b[" + itoa(e.rows) + "A"
	}
	return s + "\x1b[J"
}

func (e *liveEcho) reset() { *e = liveEcho{} }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
