// Package repl is hew's interactive front-end: a line editor on a terminal
// (plain line reading when stdin is a pipe, so sessions can be scripted),
// slash commands, strict one-turn-at-a-time execution, Ctrl+C handling and
// approval questions. Output goes through internal/ui/render.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/core"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
)

// Session is what the REPL drives: the contract of core.Session, the one
// every front-end uses. Turns, goal and loop rounds, skills and compaction
// run one at a time; Ctrl+C cancels the context they were given.
type Session interface {
	Submit(ctx context.Context, text string) agent.TurnResult
	Compact(ctx context.Context, focus string) error
	Clear() (previous string)
	Resume(ctx context.Context, id string) error
	Sessions() ([]core.Summary, error)
	SetModel(model string) error
	SetMode(m permission.Mode)
	Mode() permission.Mode
	Status() core.Status
	History() []llm.Message
	Skills() []core.SkillCommand
	RunSkill(ctx context.Context, name, args string) (agent.TurnResult, bool)
	// Memory runs /memory ARGS (list, show, open in $EDITOR, forget) and
	// returns what to print.
	Memory(ctx context.Context, args string) (string, error)
	Remember(text string) (string, error)
	Goal(ctx context.Context, cond string) agent.TurnResult
	LoopRound(ctx context.Context, prompt string) (wait time.Duration, reason string, again bool)
	PlanUndo(n int, force bool) (*checkpoint.Plan, error)
	RewindPoints() ([]core.RewindPoint, error)
	PlanRewindCode(p core.RewindPoint, force bool) (*checkpoint.Plan, error)
	RewindConversation(p core.RewindPoint) error
	// LoopStarted, LoopNext and LoopEnded keep the loop's limits and its
	// next wake-up (for /status).
	LoopStarted()
	LoopNext(round int, wait time.Duration, reason string) (ok bool, why string)
	LoopEnded()
}

var _ Session = (*core.Session)(nil)

// Options is everything Run needs; Streams, Session and Renderer are required.
type Options struct {
	Streams  *term.Streams
	Session  Session
	Renderer *render.Renderer
	// Approver is the one the session asks (core.Options.Approver; NewApprover
	// over the same Streams), or nil. Run does not call it: questions and the
	// prompt take turns reading the same Streams input, which keeps either
	// from stealing the other's lines. It is here so callers wire both in
	// one place.
	Approver *Approver

	// HistoryFile is where typed lines are kept ($HEW_HOME/history); empty
	// keeps history in memory only.
	HistoryFile string
	// WorkDir is where @path attachments are looked up; "" is the
	// process's working directory.
	WorkDir string
	// Home is the user's home directory, for ~/ in @paths ("" leaves ~/
	// as written).
	Home string
	// Banner is printed once at start (e.g. version and working directory).
	Banner string
	// Editor is the user's editor command ($VISUAL or $EDITOR), for
	// /memory open; empty says how to set one.
	Editor string

	// Interrupts delivers Ctrl+C while the terminal is in cooked mode; nil
	// subscribes to os.Interrupt for the duration of Run.
	Interrupts <-chan os.Signal
	// Terminate ends the session (Ctrl+C only stops a turn); nil
	// subscribes to SIGTERM for the duration of Run.
	Terminate <-chan os.Signal
}

// Exit codes of Run. A user-requested exit (/exit, Ctrl+D, a double Ctrl+C
// at an empty prompt) is a normal end of an interactive session, so it
// returns 0; ExitInterrupted is kept for the process being told to stop
// (the Run context cancelled, e.g. SIGTERM).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitInterrupted = 130
)

// exitWindow is how soon a second Ctrl+C at an empty prompt must follow
// the first to exit.
const exitWindow = 2 * time.Second

// timeNow is the clock for the double-Ctrl+C window (tests replace it).
var timeNow = time.Now

// errInterrupt is Ctrl+C at the prompt.
var errInterrupt = errors.New("interrupt")

// lineReader reads one message from the user.
type lineReader interface {
	// Read returns a line (possibly several lines of a paste), errInterrupt
	// on Ctrl+C, io.EOF when input ends.
	Read(ctx context.Context, prompt string) (string, error)
	Close()
}

type session struct {
	opts     Options
	s        *term.Streams
	r        *render.Renderer
	ag       Session
	in       lineReader
	tty      *ttyReader // the terminal prompt, nil when reading a pipe
	ints     <-chan os.Signal
	now      func() time.Time
	lastInt  time.Time
	exitCode int
	done     bool
}

// Run runs the interactive loop until the user exits or ctx ends, and
// returns the process exit code.
func Run(ctx context.Context, opts Options) int {
	if opts.Streams == nil || opts.Session == nil || opts.Renderer == nil {
		return ExitError
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if opts.Terminate == nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM)
		defer signal.Stop(ch)
		opts.Terminate = ch
	}
	go func() {
		select {
		case <-opts.Terminate:
			cancel()
		case <-ctx.Done():
		}
	}()
	ss := &session{opts: opts, s: opts.Streams, r: opts.Renderer, ag: opts.Session, now: timeNow}
	ss.ints = opts.Interrupts
	if ss.ints == nil {
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, os.Interrupt)
		defer signal.Stop(ch)
		ss.ints = ch
	}
	if ss.s.InTTY && ss.s.StdinIsOS() {
		in, err := newTTYReader(ss.s, opts.HistoryFile)
		if in != nil {
			ss.tty, ss.in = in, in
			in.ed.complete = ss.complete
			in.ed.shiftTab = ss.cycleMode
			in.ed.ctrlO = ss.showLastOutput
			if opts.Approver != nil {
				opts.Approver.useKeys(true)
				defer opts.Approver.useKeys(false)
			}
		}
		if err != nil {
			ss.r.Notice("warn", err.Error())
		}
	}
	if ss.in == nil {
		ss.in = &scanReader{s: ss.s, ints: ss.ints, echo: ss.s.OutTTY}
	}
	if se, ok := opts.Session.(interface{ SetEditor(func(path string) error) }); ok {
		se.SetEditor(ss.openInEditor)
	}
	defer ss.in.Close()
	defer ss.r.Close()
	return ss.loop(ctx)
}

func (ss *session) loop(ctx context.Context) int {
	if ss.opts.Banner != "" {
		ss.r.Println(ss.opts.Banner)
	}
	ss.showTranscript() // a resumed session (-c, --resume) shows where it was
	if ss.s.InTTY {
		ss.r.Println(ss.r.Dim("Type a task, /help for commands and keys, Esc to stop a turn, /exit to leave."))
	}
	for !ss.done {
		if ctx.Err() != nil {
			return ExitInterrupted
		}
		ss.r.Pause()
		line, err := ss.in.Read(ctx, ss.prompt())
		switch {
		case errors.Is(err, errInterrupt):
			if line != "" {
				continue // Ctrl+C on a typed line discards it, like a shell
			}
			if !ss.lastInt.IsZero() && ss.now().Sub(ss.lastInt) <= exitWindow {
				ss.farewell()
				return ExitOK
			}
			ss.lastInt = ss.now()
			ss.r.Println(ss.r.Dim("Press Ctrl+C again to exit (or type /exit)."))
			continue
		case errors.Is(err, io.EOF):
			ss.farewell()
			return ExitOK
		case ctx.Err() != nil:
			return ExitInterrupted
		case err != nil:
			ss.r.Notice("error", err.Error())
			return ExitError
		}
		ss.lastInt = time.Time{}
		ss.handle(ctx, line)
	}
	ss.farewell()
	return ss.exitCode
}

func (ss *session) prompt() string {
	mode := ss.ag.Mode()
	p := "› "
	if mode != "" && mode != permission.ModeDefault {
		p = "[" + string(mode) + "] › "
	}
	if ss.s.Color {
		return "\x1b[1;36m" + p + "\x1b[0m"
	}
	return p
}

// handle dispatches one input: a slash command or a message to the agent.
func (ss *session) handle(ctx context.Context, line string) {
	text := strings.TrimSpace(line)
	if text == "" {
		return
	}
	if cmd, args, ok := parseCommand(text); ok {
		ss.command(ctx, cmd, args)
		return
	}
	if strings.HasPrefix(text, "//") { // "//x" sends "/x" literally
		line = strings.TrimPrefix(strings.TrimLeft(line, " "), "/")
	}
	if strings.Contains(line, "@") {
		var notes []string
		line, notes = attachFiles(line, ss.opts.WorkDir, ss.opts.Home)
		for _, n := range notes {
			ss.r.Notice("info", n)
		}
	}
	ss.turn(ctx, func(c context.Context) { ss.ag.Submit(c, line) })
	ss.r.Println("")
}

// parseCommand recognises "/name args". A first word with another slash
// ("/usr/bin is …") is a path, not a command.
func parseCommand(text string) (name, args string, ok bool) {
	if !strings.HasPrefix(text, "/") || strings.HasPrefix(text, "//") {
		return "", "", false
	}
	name, args, _ = strings.Cut(text[1:], " ")
	if name == "" || strings.Contains(name, "/") {
		return "", "", false
	}
	return strings.ToLower(name), strings.TrimSpace(args), true
}

// turn runs work with a context that Esc or Ctrl+C cancels, and waits for
// it to return: one turn at a time, and the session is consistent
// afterwards. It reports whether the turn was stopped. On a terminal it
// takes the keys typed meanwhile: an open approval question gets them, Esc
// and Ctrl+C stop the turn (at a question too), the rest is type-ahead.
func (ss *session) turn(ctx context.Context, work func(context.Context)) (interrupted bool) {
	drain(ss.ints)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		work(tctx)
	}()
	var keys <-chan key
	if ss.tty != nil {
		keys = ss.tty.kb.keys
	}
	stopping := false
	stop := func() {
		if stopping {
			ss.r.Notice("info", "still stopping…")
		}
		stopping = true
		cancel()
	}
	for {
		select {
		case <-done:
			return stopping
		case <-ss.ints:
			stop()
		case k := <-keys:
			switch {
			case k.kind == kEOF:
				ss.tty.kb.ended.Store(true)
				keys = nil
				stop()
			case k.isStop():
				stop()
			case ss.opts.Approver != nil && ss.opts.Approver.offer(k):
			default:
				ss.tty.typeAhead(k)
			}
		}
	}
}

func drain(ch <-chan os.Signal) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func (ss *session) printf(format string, args ...any) {
	ss.r.Println(fmt.Sprintf(format, args...))
}
