package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/reeflective/readline"

	"github.com/hew-dev/hew/internal/term"
)

// ttyReader edits lines with reeflective/readline: emacs/vi keys, history
// with Ctrl+R search, correct wide characters, and bracketed paste so a
// multi-line paste arrives as one message.
type ttyReader struct {
	rl     *readline.Shell
	s      *term.Streams
	prompt string
	// ints carries Ctrl+C pressed while the editor was not running: the
	// terminal is then in cooked mode and turns the key into SIGINT.
	ints <-chan os.Signal
}

func newTTYReader(s *term.Streams, historyFile string, ints <-chan os.Signal) (*ttyReader, error) {
	rl := readline.NewShell()
	_ = rl.Config.Set("enable-bracketed-paste", true)
	// The prompt always starts at column 0 (the renderer ends its lines), so
	// the editor needs no "where is the cursor" query; answering that query
	// races with typed keys and loses them.
	_ = rl.Config.Set("cursor-position-probe", false)
	t := &ttyReader{rl: rl, s: s, ints: ints}
	rl.Prompt.Primary(func() string { return t.prompt })
	rl.Prompt.Secondary(func() string { return "  " })
	if historyFile == "" {
		return t, nil
	}
	if err := os.MkdirAll(filepath.Dir(historyFile), 0o700); err != nil {
		return t, fmt.Errorf("history not kept: %w", err)
	}
	rl.History.AddFromFile("history", historyFile)
	return t, nil
}

func (t *ttyReader) Read(_ context.Context, prompt string) (string, error) {
	// Raw mode first, then look for a Ctrl+C that came as a signal: from
	// here on it arrives as a key, so none falls between the two.
	if restore, err := t.s.MakeRaw(); err == nil {
		defer restore()
	}
	select {
	case <-t.ints: // pressed between two prompts
		return "", errInterrupt
	default:
	}
	t.prompt = prompt
	line, err := t.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return line, errInterrupt
	}
	return line, err
}

func (t *ttyReader) Close() {}

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
