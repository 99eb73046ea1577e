package repl

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// editor is hew's line editor: one message, possibly of several lines,
// edited in place below the output. It owns the rows from the prompt down
// and redraws them by going up to the prompt's row, clearing to the end of
// the screen and printing again; it never moves the cursor down (which does
// nothing on the bottom row), it starts new rows with CR LF so the screen
// scrolls, and it breaks rows itself so it always knows where the prompt
// is. Grapheme clusters are the unit of movement and deletion.
type editor struct {
	out   io.Writer
	width func() int
	hist  *history

	// complete returns the candidates for the word ending at the cursor
	// and where that word starts (a rune index).
	complete func(text []rune, pos int) (start int, cands []string)
	// shiftTab is called for Shift+Tab and returns the new prompt.
	shiftTab func() string
	// ctrlO prints something above the prompt (the last tool output).
	ctrlO func()

	prompt  string
	promptW int
	buf     []rune
	pos     int

	// What is on the screen: the rows drawn and where the cursor is.
	drawn      screenLayout
	drawnWidth int
	onScreen   bool

	// Ctrl+R search.
	searching bool
	query     []rune
	found     int // history index of the match, -1 for none
	saved     []rune

	histIdx int    // the entry shown by Up/Down; len(entries) is the draft
	draft   []rune // the line being written before Up was pressed
}

// readLine edits one message. keys supplies the keys (the shared
// keyboard, or the type-ahead first); resized tells of a new terminal size.
// It returns the text on Enter, errInterrupt (with the discarded text) on
// Ctrl+C and io.EOF on Ctrl+D at an empty line or when input ends.
func (e *editor) readLine(ctx context.Context, prompt string, keys func(context.Context) (key, error), resized <-chan struct{}) (string, error) {
	e.setPrompt(prompt)
	e.buf, e.pos, e.searching = nil, 0, false
	e.onScreen = false
	if e.hist != nil {
		e.histIdx = len(e.hist.entries)
	}
	e.draft = nil
	e.draw()
	for {
		k, err := e.wait(ctx, keys, resized)
		if err != nil {
			e.finish()
			return string(e.buf), err
		}
		if k.kind == kNone {
			continue
		}
		if line, done, err := e.handle(k); done {
			return line, err
		}
	}
}

// wait returns the next key, redrawing whenever the terminal is resized.
func (e *editor) wait(ctx context.Context, keys func(context.Context) (key, error), resized <-chan struct{}) (key, error) {
	if resized == nil {
		return keys(ctx)
	}
	kctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type got struct {
		k   key
		err error
	}
	ch := make(chan got, 1)
	go func() {
		k, err := keys(kctx)
		ch <- got{k, err}
	}()
	for {
		select {
		case g := <-ch:
			return g.k, g.err
		case <-resized:
			e.redrawAfterResize()
		}
	}
}

func (e *editor) setPrompt(p string) {
	e.prompt, e.promptW = p, visibleWidth(p)
}

// handle applies one key; done reports that readLine returns.
func (e *editor) handle(k key) (line string, done bool, err error) {
	if e.searching {
		if !e.searchKey(k) {
			return "", false, nil
		}
		if k.kind == kEnter {
			return e.accept()
		}
	}
	switch k.kind {
	case kRune:
		e.insert([]rune{k.r})
	case kPaste:
		e.insert([]rune(k.text))
	case kNewline:
		e.insert([]rune{'\n'})
	case kEnter:
		if e.pos > 0 && e.buf[e.pos-1] == '\\' {
			// a backslash before Enter asks for a newline, as in a shell
			e.buf = append(e.buf[:e.pos-1], e.buf[e.pos:]...)
			e.pos--
			e.insert([]rune{'\n'})
			return "", false, nil
		}
		return e.accept()
	case kBackspace:
		if start := e.prevBoundary(e.pos); start < e.pos {
			e.buf = append(e.buf[:start], e.buf[e.pos:]...)
			e.pos = start
		}
	case kDelete:
		e.deleteForward()
	case kLeft:
		e.pos = e.prevBoundary(e.pos)
	case kRight:
		e.pos = e.nextBoundary(e.pos)
	case kHome:
		e.pos = e.lineStart(e.pos)
	case kEnd:
		e.pos = e.lineEnd(e.pos)
	case kWordLeft:
		e.pos = e.wordLeft(e.pos)
	case kWordRight:
		e.pos = e.wordRight(e.pos)
	case kWordDelete:
		start := e.wordLeft(e.pos)
		e.buf = append(e.buf[:start], e.buf[e.pos:]...)
		e.pos = start
	case kUp:
		if ls := e.lineStart(e.pos); ls > 0 {
			e.pos = e.moveVertical(ls - 1)
		} else {
			e.historyMove(-1)
		}
	case kDown:
		if le := e.lineEnd(e.pos); le < len(e.buf) {
			e.pos = e.moveVertical(le + 1)
		} else {
			e.historyMove(1)
		}
	case kTab:
		e.tab()
	case kShiftTab:
		if e.shiftTab != nil {
			e.setPrompt(e.shiftTab())
		}
	case kCtrl:
		return e.ctrlKey(k.r)
	case kEsc:
		// Esc at the prompt does nothing (it stops a running turn).
		return "", false, nil
	}
	e.draw()
	return "", false, nil
}

func (e *editor) ctrlKey(c rune) (string, bool, error) {
	switch c {
	case 'c':
		line := string(e.buf)
		e.finish()
		return line, true, errInterrupt
	case 'd':
		if len(e.buf) == 0 {
			e.finish()
			return "", true, io.EOF
		}
		e.deleteForward()
	case 'a':
		e.pos = e.lineStart(e.pos)
	case 'e':
		e.pos = e.lineEnd(e.pos)
	case 'b':
		e.pos = e.prevBoundary(e.pos)
	case 'f':
		e.pos = e.nextBoundary(e.pos)
	case 'k':
		end := e.lineEnd(e.pos)
		if end == e.pos && end < len(e.buf) {
			end++ // at a line's end, join the next line
		}
		e.buf = append(e.buf[:e.pos], e.buf[end:]...)
	case 'u':
		start := e.lineStart(e.pos)
		e.buf = append(e.buf[:start], e.buf[e.pos:]...)
		e.pos = start
	case 'w':
		start := e.pos
		for start > 0 && unicode.IsSpace(e.buf[start-1]) {
			start--
		}
		for start > 0 && !unicode.IsSpace(e.buf[start-1]) {
			start--
		}
		e.buf = append(e.buf[:start], e.buf[e.pos:]...)
		e.pos = start
	case 'p':
		e.historyMove(-1)
	case 'n':
		e.historyMove(1)
	case 'r':
		e.startSearch()
	case 'l':
		_, _ = io.WriteString(e.out, "\x1b[H\x1b[2J")
		e.onScreen = false
	case 'o':
		if e.ctrlO != nil {
			e.above(e.ctrlO)
			return "", false, nil
		}
	}
	e.draw()
	return "", false, nil
}

// accept ends the edit with the cursor below the text.
func (e *editor) accept() (string, bool, error) {
	line := string(e.buf)
	e.finish()
	if e.hist != nil {
		e.hist.add(line)
	}
	return line, true, nil
}

// finish draws the text one last time with the cursor at its end and moves
// to the start of the next row, where output continues.
func (e *editor) finish() {
	e.searching = false
	e.pos = len(e.buf)
	e.draw()
	_, _ = io.WriteString(e.out, "\r\n")
	e.onScreen = false
}

func (e *editor) insert(rs []rune) {
	rs = cleanInput(rs)
	e.buf = append(e.buf[:e.pos], append(rs, e.buf[e.pos:]...)...)
	e.pos += len(rs)
}

// cleanInput keeps text, newlines and tabs (as spaces); other control
// characters would move the cursor behind the editor's back.
func cleanInput(rs []rune) []rune {
	out := rs[:0:0]
	for _, r := range rs {
		switch {
		case r == '\n':
			out = append(out, r)
		case r == '\t':
			out = append(out, ' ', ' ', ' ', ' ')
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		default:
			out = append(out, r)
		}
	}
	return out
}

func (e *editor) deleteForward() {
	if end := e.nextBoundary(e.pos); end > e.pos {
		e.buf = append(e.buf[:e.pos], e.buf[end:]...)
	}
}

// prevBoundary is the start of the grapheme before pos.
func (e *editor) prevBoundary(pos int) int {
	prev := 0
	for _, g := range graphemes(e.buf) {
		if g.end >= pos {
			if g.end == pos {
				return g.start
			}
			return prev
		}
		prev = g.start
	}
	return prev
}

// nextBoundary is the end of the grapheme at pos.
func (e *editor) nextBoundary(pos int) int {
	for _, g := range graphemes(e.buf) {
		if g.start >= pos {
			return g.end
		}
	}
	return len(e.buf)
}

func (e *editor) lineStart(pos int) int {
	for pos > 0 && e.buf[pos-1] != '\n' {
		pos--
	}
	return pos
}

func (e *editor) lineEnd(pos int) int {
	for pos < len(e.buf) && e.buf[pos] != '\n' {
		pos++
	}
	return pos
}

// moveVertical puts the cursor on the line containing target at the
// current column (in graphemes), or that line's end.
func (e *editor) moveVertical(target int) int {
	col := 0
	for _, g := range graphemes(e.buf[e.lineStart(e.pos):e.pos]) {
		col += max(g.w, 1)
	}
	p := e.lineStart(target)
	end := e.lineEnd(target)
	for _, g := range graphemes(e.buf[p:end]) {
		if col <= 0 {
			break
		}
		col -= max(g.w, 1)
		p += g.end - g.start
	}
	return p
}

func (e *editor) wordLeft(pos int) int {
	for pos > 0 && !isWordRune(e.buf[pos-1]) {
		pos--
	}
	for pos > 0 && isWordRune(e.buf[pos-1]) {
		pos--
	}
	return pos
}

func (e *editor) wordRight(pos int) int {
	for pos < len(e.buf) && !isWordRune(e.buf[pos]) {
		pos++
	}
	for pos < len(e.buf) && isWordRune(e.buf[pos]) {
		pos++
	}
	return pos
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// historyMove shows an older (-1) or newer (+1) history entry.
func (e *editor) historyMove(d int) {
	if e.hist == nil {
		return
	}
	n := len(e.hist.entries)
	i := e.histIdx + d
	if i < 0 || i > n {
		return
	}
	if e.histIdx == n {
		e.draft = append([]rune(nil), e.buf...)
	}
	e.histIdx = i
	if i == n {
		e.buf = append([]rune(nil), e.draft...)
	} else {
		e.buf = []rune(e.hist.entries[i])
	}
	e.pos = len(e.buf)
}

// tab completes the word before the cursor: the one candidate, or the
// candidates' common prefix, listing them above the prompt when typing
// more is needed.
func (e *editor) tab() {
	if e.complete == nil {
		return
	}
	start, cands := e.complete(e.buf, e.pos)
	if len(cands) == 0 {
		return
	}
	word := string(e.buf[start:e.pos])
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			common = string([]rune(common)[:len([]rune(common))-1])
		}
	}
	insert := common
	if len(cands) == 1 && !strings.HasSuffix(insert, "/") {
		insert += " "
	}
	if insert != word {
		rest := e.buf[e.pos:]
		e.buf = append(append(append([]rune(nil), e.buf[:start]...), []rune(insert)...), rest...)
		e.pos = start + len([]rune(insert))
		return
	}
	if len(cands) > 1 {
		e.above(func() {
			_, _ = io.WriteString(e.out, columns(cands, e.width())+"\n")
		})
	}
}

// columns lays words out in columns across width.
func columns(words []string, width int) string {
	w := 0
	for _, s := range words {
		w = max(w, visibleWidth(s))
	}
	w += 2
	per := max(1, width/w)
	var b strings.Builder
	for i, s := range words {
		if i > 0 && i%per == 0 {
			b.WriteString("\n")
		}
		b.WriteString(s)
		if (i+1)%per != 0 && i+1 < len(words) {
			b.WriteString(strings.Repeat(" ", w-visibleWidth(s)))
		}
	}
	return b.String()
}

// above erases the prompt, lets print write whole lines, and draws the
// prompt again below them.
func (e *editor) above(print func()) {
	e.erase()
	print()
	e.draw()
}

// erase clears the rows the editor drew and leaves the cursor where the
// prompt started.
func (e *editor) erase() {
	if !e.onScreen {
		return
	}
	var b strings.Builder
	b.WriteString("\r")
	if e.drawn.curRow > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", e.drawn.curRow)
	}
	b.WriteString("\x1b[J")
	_, _ = io.WriteString(e.out, b.String())
	e.onScreen = false
}

// draw shows the prompt and text, replacing what the editor drew before.
func (e *editor) draw() {
	prompt, promptW, buf, pos := e.prompt, e.promptW, e.buf, e.pos
	if e.searching {
		prompt, buf, pos = e.searchView()
		promptW = visibleWidth(prompt)
	}
	width := e.width()
	l := layoutLine(prompt, promptW, buf, pos, width)
	var b strings.Builder
	b.WriteString("\x1b[?25l") // no flicker of the cursor while drawing
	if e.onScreen {
		b.WriteString("\r")
		if e.drawn.curRow > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", e.drawn.curRow)
		}
	}
	b.WriteString("\r\x1b[J")
	b.WriteString(strings.Join(l.rows, "\r\n"))
	if up := len(l.rows) - 1 - l.curRow; up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	b.WriteString("\r")
	if l.curCol > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", l.curCol)
	}
	b.WriteString("\x1b[?25h")
	_, _ = io.WriteString(e.out, b.String())
	e.drawn, e.drawnWidth, e.onScreen = l, width, true
}

// redrawAfterResize finds the prompt again after the terminal re-wrapped
// the rows drawn at the old width, and draws at the new width.
func (e *editor) redrawAfterResize() {
	width := e.width()
	if !e.onScreen || width == e.drawnWidth {
		e.draw()
		return
	}
	up := rowsAfterReflow(e.drawn.widths[:e.drawn.curRow], width) + e.drawn.curCol/max(width, 1)
	e.drawn.curRow = up
	e.draw()
}
