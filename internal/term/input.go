package term

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
	"time"
)

// maxStdinPrompt bounds what is read from a pipe as (part of) the prompt.
const maxStdinPrompt = 10 << 20

// StdinKind says what standard input is, which decides the front-end.
type StdinKind int

// Kinds of standard input.
const (
	StdinNone     StdinKind = iota // nothing to read (/dev/null, closed)
	StdinTerminal                  // a terminal: the REPL or approvals read it
	StdinPiped                     // a pipe or a file: a prompt to read
)

// ClassifyStdin tells what r is; a reader that is not a file (a test's,
// an embedder's) counts as piped.
func ClassifyStdin(r io.Reader) StdinKind {
	f, ok := r.(*os.File)
	if !ok {
		if r == nil {
			return StdinNone
		}
		return StdinPiped // a reader handed in by a test or embedder
	}
	st, err := f.Stat()
	if err != nil {
		return StdinNone
	}
	m := st.Mode()
	switch {
	case m&os.ModeCharDevice != 0:
		if FromFiles(f, nil, nil, nil).InTTY {
			return StdinTerminal
		}
		return StdinNone // /dev/null and other devices
	case m&os.ModeNamedPipe != 0, m.IsRegular(), m&os.ModeSocket != 0:
		return StdinPiped
	}
	return StdinNone
}

// ReadPiped reads a piped prompt (at most 10 MiB). With wait > 0 it gives up (returning "")
// when no byte arrives in time; the reading goroutine then stays parked on
// the pipe until the process exits.
func ReadPiped(r io.Reader, wait time.Duration) (string, error) {
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

// PipedWait is how long AppendPiped waits for the first byte of piped
// input when a prompt was also given on the command line: long enough for
// `git diff | hew -p review`, short enough that a harness which leaves stdin
// open and silent costs one second, not a hang.
const PipedWait = time.Second

// AppendPiped is the prompt of a run whose stdin is piped: text (the
// command line's), then what the pipe holds, after a blank line. With no
// text the pipe is all there is and is waited for; with text, at most
// PipedWait for its first byte.
func AppendPiped(text string, r io.Reader) (string, error) { return appendPiped(text, r, PipedWait) }

func appendPiped(text string, r io.Reader, wait time.Duration) (string, error) {
	if text == "" {
		wait = 0
	}
	piped, err := ReadPiped(r, wait)
	if err != nil {
		return "", err
	}
	switch piped = strings.TrimSpace(piped); {
	case piped == "":
		return text, nil
	case text == "":
		return piped, nil
	}
	return text + "\n\n" + piped, nil
}

// Confirm writes question to out and reads the answer, one line, from in:
// true for "y" or "yes" (any case). It reads byte by byte, so nothing after
// the line is consumed from a terminal that is read next.
func Confirm(in io.Reader, out io.Writer, question string) bool {
	io.WriteString(out, question)
	var b strings.Builder
	buf := make([]byte, 1)
	for b.Len() < 256 {
		n, err := in.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			break
		}
	}
	switch strings.ToLower(strings.TrimSpace(b.String())) {
	case "y", "yes":
		return true
	}
	return false
}
