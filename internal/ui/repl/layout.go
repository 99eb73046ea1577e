package repl

import (
	"strings"

	"github.com/rivo/uniseg"

	"github.com/hew-dev/hew/internal/ui/render"
)

// contPrefix starts each further line of a multi-line message.
const contPrefix = "  "

// grapheme is one user-perceived character of the line being edited: the
// runes [start, end) of the buffer, w columns wide.
type grapheme struct {
	start, end int
	w          int
	s          string
}

// graphemes splits buf into grapheme clusters, so that the cursor never
// lands inside one (a base letter and its combining marks, an emoji with
// its modifiers, a CJK character) and each is measured as the terminal
// draws it.
func graphemes(buf []rune) []grapheme {
	var out []grapheme
	g := uniseg.NewGraphemes(string(buf))
	pos := 0
	for g.Next() {
		s := g.Str()
		n := len([]rune(s))
		w := render.Width(s)
		if s == "\n" {
			w = 0
		}
		out = append(out, grapheme{start: pos, end: pos + n, w: w, s: s})
		pos += n
	}
	return out
}

// screenLayout is where the prompt and the line land on the screen.
type screenLayout struct {
	rows   []string // what to print on each row (the first starts with the prompt)
	widths []int    // columns used on each row
	curRow int      // the cursor's row, counted from the first
	curCol int
}

// layoutLine places prompt (promptW columns wide) and buf on rows of
// width columns, cursor at rune index pos. Rows are broken explicitly,
// never by the terminal's own wrapping, so the editor always knows where
// everything is: a grapheme that does not fit goes to the next row whole
// (a wide character is never split), and a newline in the text starts a
// row with contPrefix.
func layoutLine(prompt string, promptW int, buf []rune, pos, width int) screenLayout {
	width = max(width, 2)
	var l screenLayout
	var row strings.Builder
	row.WriteString(prompt)
	col := promptW
	if col >= width {
		// a prompt wider than the terminal gets a row of its own
		l.rows, l.widths = append(l.rows, row.String()), append(l.widths, col)
		row.Reset()
		col = 0
	}
	newRow := func() {
		l.rows, l.widths = append(l.rows, row.String()), append(l.widths, col)
		row.Reset()
		col = 0
	}
	placed := false
	for _, g := range graphemes(buf) {
		if g.s == "\n" {
			if g.start == pos {
				l.curRow, l.curCol, placed = len(l.rows), min(col, width-1), true
			}
			newRow()
			row.WriteString(contPrefix)
			col = len(contPrefix)
			continue
		}
		if col+g.w > width {
			newRow()
		}
		if g.start == pos {
			l.curRow, l.curCol, placed = len(l.rows), col, true
		}
		row.WriteString(g.s)
		col += g.w
	}
	if !placed {
		if col >= width { // the cursor after a full row sits on the next
			newRow()
		}
		l.curRow, l.curCol = len(l.rows), col
	}
	l.rows, l.widths = append(l.rows, row.String()), append(l.widths, col)
	return l
}

// rowsAfterReflow is how many screen rows rows of the given widths take
// once the terminal has re-wrapped them to width columns (as terminals do
// on resize: a row wider than the new width spills over).
func rowsAfterReflow(widths []int, width int) int {
	n := 0
	for _, w := range widths {
		n += max(1, (w+width-1)/max(width, 1))
	}
	return n
}

// visibleWidth measures s without its SGR escape sequences.
func visibleWidth(s string) int {
	return render.Width(stripANSI(s))
}

// stripANSI removes CSI escape sequences (colours) from s.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
