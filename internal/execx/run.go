package execx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Limits and defaults.
const (
	DefaultTimeout   = 2 * time.Minute
	MaxTimeout       = 10 * time.Minute
	DefaultMaxOutput = 1 << 20
	// KillGrace is how long a process group gets between SIGTERM and SIGKILL.
	KillGrace = 2 * time.Second
	// PipeGrace is how long output is still collected after the command
	// exited while background processes keep the pipe open.
	PipeGrace = 200 * time.Millisecond
)

// runOptions describe one command.
type runOptions struct {
	Command string
	Dir     string
	// Env is the child environment; empty means inherit this process's.
	Env []string
	// Timeout is clamped to (0, MaxTimeout]; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxOutput caps kept bytes (head and tail); zero means DefaultMaxOutput.
	MaxOutput int
	// Wrap, when set, rewrites the argv (e.g. ["bash","-c",cmd]) before
	// exec, so a sandbox can re-exec itself around the shell.
	Wrap func(argv []string) ([]string, error)
	// Guard, when set, is the argv prefix of hew's group guard (Linux): the
	// guard leads the process group, runs the command and, when hew dies
	// (even by kill -9), kills the whole group. See execx.GuardMain.
	Guard []string
	// OutputFile, when set, receives the whole output as it is produced
	// (created 0600 with its directory), so output beyond MaxOutput is kept
	// on disk while memory holds only head and tail.
	OutputFile string
	// Track, when set, is a directory where the running command's process
	// group is recorded until it ends, so a later hew can reap it if this
	// one is killed mid-command (see ReapOrphans).
	Track string
}

// runResult is what happened.
type runResult struct {
	Output   string
	ExitCode int
	TimedOut bool
	// Aborted is set when ctx was cancelled before the command ended.
	Aborted bool
	// Truncated counts bytes cut from the middle of Output.
	Truncated int
	Duration  time.Duration
	// Total is the number of output bytes the command produced.
	Total int
	// SaveErr is why OutputFile could not be written whole (nil if it was).
	SaveErr error
}

// EffectiveTimeout applies the default and the maximum to t.
func EffectiveTimeout(t time.Duration) time.Duration {
	switch {
	case t <= 0:
		return DefaultTimeout
	case t > MaxTimeout:
		return MaxTimeout
	}
	return t
}

// Run executes opts.Command with the platform shell. A command that cannot
// be started is an error; a non-zero exit, timeout or cancellation is
// reported in runResult (with ctx.Err() returned for a cancellation).
func runCommand(ctx context.Context, opts runOptions) (runResult, error) {
	start := time.Now()
	argv, err := ShellArgv(opts.Command)
	if err != nil {
		return runResult{}, err
	}
	if opts.Wrap != nil {
		if argv, err = opts.Wrap(argv); err != nil {
			return runResult{}, fmt.Errorf("wrap command: %w", err)
		}
		if len(argv) == 0 {
			return runResult{}, errors.New("wrap command: empty argv")
		}
	}
	if len(opts.Guard) > 0 {
		argv = append(append(append([]string(nil), opts.Guard...), "--"), argv...)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return runResult{}, fmt.Errorf("output pipe: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = opts.Dir
	if len(opts.Env) > 0 {
		cmd.Env = opts.Env
	}
	cmd.Stdin = nil // /dev/null: cat, read and password prompts get EOF
	cmd.Stdout, cmd.Stderr = pw, pw
	setProcAttr(cmd, len(opts.Guard) > 0)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return runResult{}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	pw.Close() // the children hold the only write ends now
	if opts.Track != "" {
		defer track(opts.Track, cmd.Process.Pid)()
	}

	max := opts.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	buf := newCapture(max)
	var sink io.Writer = buf
	var save *fileSink
	if opts.OutputFile != "" {
		save = openSink(opts.OutputFile)
		sink = io.MultiWriter(buf, save)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer pr.Close()
		_, _ = io.Copy(sink, pr)
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	timer := time.NewTimer(EffectiveTimeout(opts.Timeout))
	defer timer.Stop()
	var res runResult
	select {
	case <-waitDone:
	case <-timer.C:
		res.TimedOut = true
		stop(cmd, waitDone)
	case <-ctx.Done():
		res.Aborted = true
		stop(cmd, waitDone)
	}
	if res.TimedOut || res.Aborted {
		killGroup(cmd, true) // leftovers of a killed command go too
	}
	grace := time.NewTimer(PipeGrace)
	select {
	case <-readDone:
	case <-grace.C:
		// Background processes still hold the pipe: keep what we have and
		// let the reader drain (and discard) until they exit.
	}
	grace.Stop()
	res.Output, res.Truncated = buf.finish()
	res.Total = buf.totalBytes()
	if save != nil {
		res.SaveErr = save.close()
	}
	res.ExitCode = exitCode(cmd)
	res.Duration = time.Since(start)
	if res.Aborted {
		return res, fmt.Errorf("command aborted: %w", ctx.Err())
	}
	return res, nil
}

// stop terminates the process group politely, then forcibly, and waits for
// the main process to be reaped.
func stop(cmd *exec.Cmd, waitDone <-chan error) {
	killGroup(cmd, false)
	t := time.NewTimer(KillGrace)
	defer t.Stop()
	select {
	case <-waitDone:
		return
	case <-t.C:
	}
	killGroup(cmd, true)
	<-waitDone
}

// capture keeps the first and last bytes of a stream.
type capture struct {
	mu      sync.Mutex
	headCap int
	tailCap int
	head    []byte
	tail    []byte
	total   int
	closed  bool
}

func newCapture(max int) *capture {
	h := max / 2
	return &capture{headCap: h, tailCap: max - h}
}

// Write keeps the head, rolls the tail and discards everything after finish.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return len(p), nil
	}
	c.total += len(p)
	q := p
	if room := c.headCap - len(c.head); room > 0 {
		n := min(room, len(q))
		c.head = append(c.head, q[:n]...)
		q = q[n:]
	}
	if len(q) > 0 {
		c.tail = append(c.tail, q...)
		if len(c.tail) > 2*c.tailCap {
			c.tail = append(c.tail[:0:0], c.tail[len(c.tail)-c.tailCap:]...)
		}
	}
	return len(p), nil
}

// finish freezes the capture and returns the text with a marker where bytes
// were cut, and how many were cut.
func (c *capture) totalBytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// fileSink streams output to a file; a failed write is remembered and the
// rest is dropped, so a full disk never blocks the command.
type fileSink struct {
	mu  sync.Mutex
	f   *os.File
	err error
}

func openSink(path string) *fileSink {
	s := &fileSink{}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		s.err = err
		return s
	}
	s.f, s.err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	return s
}

// Write implements io.Writer and never fails, so the capture goes on.
func (s *fileSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && s.f != nil {
		if _, err := s.f.Write(p); err != nil {
			s.err = err
		}
	}
	return len(p), nil
}

func (s *fileSink) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		if err := s.f.Close(); err != nil && s.err == nil {
			s.err = err
		}
		s.f = nil
	}
	return s.err
}

func (c *capture) finish() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	tail := c.tail
	if len(tail) > c.tailCap {
		tail = tail[len(tail)-c.tailCap:]
	}
	cut := c.total - len(c.head) - len(tail)
	if cut <= 0 {
		return string(c.head) + string(tail), 0
	}
	head, tailStr := CutValidUTF8(string(c.head), string(tail))
	cut = c.total - len(head) - len(tailStr)
	return fmt.Sprintf("%s\n[… %d bytes of output cut …]\n%s", head, cut, tailStr), cut
}
