package repl

import (
	"context"
	"io"
	"os"

	"github.com/hew-dev/hew/internal/term"
)

// ttyReader is the prompt on a terminal: hew's own line editor over a
// keyboard that reads keys for the whole session. The terminal stays in
// key mode from start to end (keys arrive at once, nothing is echoed, Ctrl+C
// and Esc are keys), so keys typed during a turn are not lost: Esc and
// Ctrl+C stop the turn, an approval question takes its answer, and the rest
// is type-ahead for the next prompt.
type ttyReader struct {
	s       *term.Streams
	ed      *editor
	kb      *keyboard
	ahead   []key // typed during a turn, replayed at the next prompt
	resized chan struct{}
	stop    func()
	// restore takes the terminal out of key mode.
	restore func()
}

// maxTypeAhead bounds the keys kept from a turn.
const maxTypeAhead = 4096

func newTTYReader(s *term.Streams, historyFile string) (*ttyReader, error) {
	restore, err := s.MakeKeyMode()
	if err != nil {
		return nil, err
	}
	hist, herr := loadHistory(historyFile)
	t := &ttyReader{s: s, resized: make(chan struct{}, 1), restore: restore}
	t.ed = &editor{out: s.Out, width: s.Width, hist: hist}
	t.kb = startKeyboard(s.ReadInput)
	stopWinch := notifyResize(t.resized)
	_, _ = io.WriteString(s.Out, "\x1b[?2004h") // bracketed paste: a paste is one message
	t.stop = func() {
		_, _ = io.WriteString(s.Out, "\x1b[?2004l")
		stopWinch()
		t.kb.close()
		t.restore()
	}
	return t, herr
}

// suspend hands the terminal to another program (the user's editor): the
// keyboard stops reading and the terminal leaves key mode until resume.
func (t *ttyReader) suspend() (resume func()) {
	t.kb.close()
	_, _ = io.WriteString(t.s.Out, "\x1b[?2004l")
	t.restore()
	return func() {
		if r, err := t.s.MakeKeyMode(); err == nil {
			t.restore = r
		}
		_, _ = io.WriteString(t.s.Out, "\x1b[?2004h")
		t.kb = startKeyboard(t.s.ReadInput)
	}
}

// next is the editor's key source: type-ahead first, then the keyboard.
func (t *ttyReader) next(ctx context.Context) (key, error) {
	if len(t.ahead) > 0 {
		k := t.ahead[0]
		t.ahead = t.ahead[1:]
		return k, nil
	}
	return t.kb.next(ctx)
}

func (t *ttyReader) Read(ctx context.Context, prompt string) (string, error) {
	return t.ed.readLine(ctx, prompt, t.next, t.resized)
}

// ask reads a one-off answer (a confirmation) with the editor, keeping it
// out of the history.
func (t *ttyReader) ask(ctx context.Context, prompt string) (string, error) {
	h := t.ed.hist
	t.ed.hist = nil
	defer func() { t.ed.hist = h }()
	return t.ed.readLine(ctx, prompt, t.next, t.resized)
}

// typeAhead keeps a key pressed while a turn runs.
func (t *ttyReader) typeAhead(k key) {
	if len(t.ahead) < maxTypeAhead {
		t.ahead = append(t.ahead, k)
	}
}

func (t *ttyReader) Close() { t.stop() }

// scanReader reads one line per message from a pipe or file, so a session
// can be scripted. Ctrl+C (a signal here) interrupts the wait.
type scanReader struct {
	s    *term.Streams
	ints <-chan os.Signal
	echo bool // print the prompt (output is a terminal)
}

func (sr *scanReader) Read(ctx context.Context, prompt string) (string, error) {
	if sr.echo {
		_, _ = io.WriteString(sr.s.Out, prompt)
	}
	rctx, cancel := context.WithCancel(ctx)
	interrupted := make(chan bool, 1)
	go func() {
		select {
		case <-sr.ints:
			interrupted <- true
			cancel()
		case <-rctx.Done():
			interrupted <- false
		}
	}()
	line, err := sr.s.ReadLine(rctx)
	cancel()
	if <-interrupted {
		if sr.echo {
			_, _ = io.WriteString(sr.s.Out, "\n")
		}
		return line, errInterrupt // a line that raced the Ctrl+C is discarded
	}
	if sr.echo {
		// The input is not echoed by a terminal; show it after the prompt so
		// the answer starts on its own line.
		if err == nil {
			_, _ = io.WriteString(sr.s.Out, line+"\n")
		} else {
			_, _ = io.WriteString(sr.s.Out, "\n")
		}
	}
	return line, err
}

func (sr *scanReader) Close() {}
