// Package term describes hew's standard streams as a value: readers and
// writers, whether each end is a terminal, the width, and whether colour is
// wanted. It is the only package that asks "is this a terminal", so every
// front-end can be driven by tests with plain buffers (the gh IOStreams
// pattern).
package term

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	xterm "golang.org/x/term"
)

// Env looks up an environment variable. The process environment arrives as
// a value so tests never mutate it.
type Env func(key string) (string, bool)

// EnvFromList builds an Env from KEY=VALUE pairs such as os.Environ().
// Later duplicates win, as in a shell.
func EnvFromList(environ []string) Env {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(key string) (string, bool) {
		v, ok := m[key]
		return v, ok
	}
}

// DefaultWidth is the width assumed when the output is not a terminal and
// COLUMNS does not say otherwise.
const DefaultWidth = 80

// Streams is the set of standard streams a front-end writes to and reads
// from, with what is known about them.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	// InTTY and OutTTY report whether stdin / stdout are terminals.
	InTTY  bool
	OutTTY bool
	// Color is false when NO_COLOR is set, TERM is "dumb", or stdout is
	// not a terminal.
	Color bool

	inFile *os.File // stdin when it is a terminal
	outFd  int      // stdout's descriptor when it is a terminal, else -1
	width  int      // fixed width when not measurable
	pumpMu sync.Mutex
	pump   *linePump
}

// System describes the process's own stdin, stdout and stderr.
func System(env Env) *Streams {
	return FromFiles(os.Stdin, os.Stdout, os.Stderr, env)
}

// FromFiles describes the given files, asking the OS whether they are
// terminals.
func FromFiles(in, out, errw *os.File, env Env) *Streams {
	if env == nil {
		env = EnvFromList(nil)
	}
	s := &Streams{In: in, Out: out, Err: errw, outFd: -1}
	if in != nil && xterm.IsTerminal(int(in.Fd())) {
		s.InTTY = true
		s.inFile = in
	}
	if out != nil && xterm.IsTerminal(int(out.Fd())) {
		s.OutTTY = true
		s.outFd = int(out.Fd())
	}
	s.Color = s.OutTTY && ColorWanted(env)
	s.width = DefaultWidth
	if v, ok := env("COLUMNS"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			s.width = n
		}
	}
	return s
}

// ColorWanted reports whether the environment allows ANSI colour: NO_COLOR
// (any non-empty value, see no-color.org) and TERM=dumb turn it off.
func ColorWanted(env Env) bool {
	if v, ok := env("NO_COLOR"); ok && v != "" {
		return false
	}
	if v, _ := env("TERM"); v == "dumb" {
		return false
	}
	return true
}

// Test returns streams backed by buffers: not terminals, no colour, 80
// columns. Tests may flip InTTY/OutTTY/Color and call SetWidth.
func Test() (s *Streams, in, out, errw *bytes.Buffer) {
	in, out, errw = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &Streams{In: in, Out: out, Err: errw, outFd: -1, width: DefaultWidth}, in, out, errw
}

// SetWidth fixes the width reported when stdout is not a measurable terminal.
func (s *Streams) SetWidth(n int) { s.width = n }

// Width is the current width of the output in columns: the terminal's live
// size when stdout is one, else COLUMNS or DefaultWidth.
func (s *Streams) Width() int {
	if s.outFd >= 0 {
		if w, _, err := xterm.GetSize(s.outFd); err == nil && w > 0 {
			return w
		}
	}
	if s.width > 0 {
		return s.width
	}
	return DefaultWidth
}

// StdinIsOS reports whether In is the process's terminal stdin, which line
// editors that read the OS descriptor directly require.
func (s *Streams) StdinIsOS() bool { return s.inFile != nil }

// ReadLine returns the next line of In without its line ending, for input
// that is not a terminal (scripts, pipes). All callers share one reader, so
// a REPL and an approval prompt can take turns. It returns io.EOF at the
// end of input and ctx.Err() when ctx ends first; a line that arrives later
// is kept for the next call.
func (s *Streams) ReadLine(ctx context.Context) (string, error) {
	s.pumpMu.Lock()
	if s.pump == nil {
		s.pump = startPump(s.In)
	}
	p := s.pump
	s.pumpMu.Unlock()
	return p.next(ctx)
}

// linePump reads lines in one goroutine that ends at EOF or a read error.
type linePump struct {
	lines chan lineOrErr
	mu    sync.Mutex
	final error // sticky end-of-input error once seen
}

type lineOrErr struct {
	line string
	err  error
}

func startPump(r io.Reader) *linePump {
	p := &linePump{lines: make(chan lineOrErr)}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for sc.Scan() {
			p.lines <- lineOrErr{line: strings.TrimSuffix(sc.Text(), "\r")}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		} else {
			err = fmt.Errorf("reading input: %w", err)
		}
		p.lines <- lineOrErr{err: err}
		close(p.lines)
	}()
	return p
}

func (p *linePump) next(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.final != nil {
		return "", p.final
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-p.lines:
		if !ok {
			p.final = io.EOF
			return "", io.EOF
		}
		if l.err != nil {
			p.final = l.err
			return "", l.err
		}
		return l.line, nil
	}
}

// MakeRaw puts the input terminal in raw mode (no echo, no line
// buffering, Ctrl+C arrives as a byte instead of SIGINT) and returns the
// function that restores the previous mode.
func (s *Streams) MakeRaw() (restore func(), err error) {
	if s.inFile == nil {
		return nil, ErrNotTerminal
	}
	fd := int(s.inFile.Fd())
	state, err := xterm.MakeRaw(fd)
	if err != nil {
		return nil, fmt.Errorf("raw mode: %w", err)
	}
	return func() { _ = xterm.Restore(fd, state) }, nil
}

// ErrNotTerminal is returned by ReadKey when stdin is not a terminal.
var ErrNotTerminal = errors.New("stdin is not a terminal")

// ReadKey puts the terminal in raw mode, waits for one keypress and returns
// its bytes (an escape sequence arrives whole). Ctrl+C arrives as "\x03",
// not as a signal. It returns ctx.Err() when ctx ends first (on Unix the
// wait polls, so no byte is lost to a stray reader).
func (s *Streams) ReadKey(ctx context.Context) (string, error) {
	if s.inFile == nil {
		return "", ErrNotTerminal
	}
	restore, err := s.MakeRaw()
	if err != nil {
		return "", err
	}
	defer restore()
	fd := int(s.inFile.Fd())
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		ready, err := waitReadable(fd, 100)
		if err != nil {
			return "", fmt.Errorf("waiting for a key: %w", err)
		}
		if !ready {
			continue
		}
		buf := make([]byte, 32)
		n, err := s.inFile.Read(buf)
		if n > 0 {
			return string(buf[:n]), nil
		}
		if err != nil {
			return "", fmt.Errorf("reading a key: %w", err)
		}
	}
}

// ReadInput reads whatever terminal input is available into buf, waiting
// at most wait for the first byte; it returns 0 and no error when nothing
// came. A line editor reads keys with it while staying able to stop.
func (s *Streams) ReadInput(buf []byte, wait time.Duration) (int, error) {
	if s.inFile == nil {
		return 0, ErrNotTerminal
	}
	ready, err := waitReadable(int(s.inFile.Fd()), int(wait/time.Millisecond))
	if err != nil {
		return 0, fmt.Errorf("waiting for input: %w", err)
	}
	if !ready {
		return 0, nil
	}
	n, err := s.inFile.Read(buf)
	if err != nil && n == 0 {
		return 0, err
	}
	return n, nil
}

// Height is the terminal's height in rows, or 24 when stdout is not one.
func (s *Streams) Height() int {
	if s.outFd >= 0 {
		if _, h, err := xterm.GetSize(s.outFd); err == nil && h > 0 {
			return h
		}
	}
	return 24
}

// FromIO describes the given streams: FromFiles when all three are files,
// else streams that are not terminals (no colour, DefaultWidth columns).
func FromIO(in io.Reader, out, errw io.Writer, env Env) *Streams {
	fi, ok1 := in.(*os.File)
	fo, ok2 := out.(*os.File)
	fe, ok3 := errw.(*os.File)
	if ok1 && ok2 && ok3 {
		return FromFiles(fi, fo, fe, env)
	}
	return &Streams{In: in, Out: out, Err: errw, outFd: -1, width: DefaultWidth}
}
