package render

import (
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// widthCond measures display width independently of the locale, so
// goldens and cursor arithmetic agree on every machine: CJK is 2 columns,
// ambiguous-width symbols 1.
var widthCond = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// Width is the number of terminal columns s occupies (no escape codes).
func Width(s string) int { return widthCond.StringWidth(s) }

// Truncate cuts s to at most w columns, ending with "…" when cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return widthCond.Truncate(s, w, "…")
}

// styles wraps text in SGR sequences, or returns it unchanged when colour
// is off.
type styles struct{ on bool }

func (st styles) wrap(s, open, close string) string {
	if !st.on || s == "" {
		return s
	}
	return "\x1b[" + open + "m" + s + "\x1b[" + close + "m"
}

func (st styles) bold(s string) string      { return st.wrap(s, "1", "22") }
func (st styles) dim(s string) string       { return st.wrap(s, "2", "22") }
func (st styles) italic(s string) string    { return st.wrap(s, "3", "23") }
func (st styles) underline(s string) string { return st.wrap(s, "4", "24") }
func (st styles) red(s string) string       { return st.wrap(s, "31", "39") }
func (st styles) green(s string) string     { return st.wrap(s, "32", "39") }
func (st styles) yellow(s string) string    { return st.wrap(s, "33", "39") }
func (st styles) blue(s string) string      { return st.wrap(s, "34", "39") }
func (st styles) magenta(s string) string   { return st.wrap(s, "35", "39") }
func (st styles) cyan(s string) string      { return st.wrap(s, "36", "39") }

// sanitize makes model or tool text safe to print: escape sequences
// (colours, cursor moves, window-title changes) are removed whole, other
// control characters except newline are dropped, and tabs become spaces so
// widths are known.
func sanitize(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == '\t':
			b.WriteString("    ")
		case isControl(r):
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isControl(r rune) bool {
	return r == '\t' || (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// escapeLen is the length of the escape sequence at the start of s (which
// begins with ESC): CSI up to its final byte, OSC/DCS up to BEL or ST,
// otherwise ESC and one character.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}
