package app

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/term"
)

// stdinWait is how long hew waits for the first byte of piped input when a
// prompt was also given on the command line: long enough for `git diff | hew
// -p review`, short enough that a harness which leaves stdin open and silent
// costs one second, not a hang.
const stdinWait = time.Second

// maxStdinPrompt bounds what is read from a pipe as (part of) the prompt.
const maxStdinPrompt = 10 << 20

// stdinKind says what stdin is.
type stdinKind int

const (
	stdinNone     stdinKind = iota // nothing to read (/dev/null, closed)
	stdinTerminal                  // a terminal: the REPL or approvals read it
	stdinPiped                     // a pipe or a file: a prompt to read
)

func classifyStdin(r io.Reader) stdinKind {
	f, ok := r.(*os.File)
	if !ok {
		if r == nil {
			return stdinNone
		}
		return stdinPiped // a reader handed in by a test or embedder
	}
	st, err := f.Stat()
	if err != nil {
		return stdinNone
	}
	m := st.Mode()
	switch {
	case m&os.ModeCharDevice != 0:
		if term.FromFiles(f, nil, nil, nil).InTTY {
			return stdinTerminal
		}
		return stdinNone // /dev/null and other devices
	case m&os.ModeNamedPipe != 0, m.IsRegular(), m&os.ModeSocket != 0:
		return stdinPiped
	}
	return stdinNone
}

// readPiped reads a piped prompt. With wait > 0 it gives up (returning "")
// when no byte arrives in time; the reading goroutine then stays parked on
// the pipe until the process exits.
func readPiped(r io.Reader, wait time.Duration) (string, error) {
	type res struct {
		s   string
		err error
	}
	first := make(chan struct{})
	done := make(chan res, 1)
	go func() {
		br := bufio.NewReader(io.LimitReader(r, maxStdinPrompt))
		_, err := br.Peek(1)
		close(first)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			done <- res{"", err}
			return
		}
		b, err := io.ReadAll(br)
		done <- res{string(b), err}
	}()
	if wait > 0 {
		select {
		case <-first:
		case <-time.After(wait):
			return "", nil
		}
	}
	out := <-done
	return strings.TrimRight(out.s, "\r\n"), out.err
}
