package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
	"github.com/hew-dev/hew/internal/ui/repl"
)

// streams describes the standard streams for the terminal front-ends.
func (a *cli) streams() *term.Streams {
	env := term.EnvFromList(a.environ)
	in, ok1 := a.stdin.(*os.File)
	out, ok2 := a.stdout.(*os.File)
	errw, ok3 := a.stderr.(*os.File)
	if ok1 && ok2 && ok3 {
		return term.FromFiles(in, out, errw, env)
	}
	s, _, _, _ := term.Test()
	s.In, s.Out, s.Err = a.stdin, a.stdout, a.stderr
	return s
}

// terminal is the front-end of interactive runs: the renderer and the
// approver asking on the terminal, made once the settings are known.
type terminal struct {
	a  *cli
	o  *options
	s  *term.Streams
	r  *render.Renderer
	ap *repl.Approver
}

func (t *terminal) frontEnd(settings *config.Settings) frontEnd {
	t.s = t.a.streams()
	bell := time.Duration(0) // the renderer's default
	if !settings.Bell {
		bell = -1 // "bell": false in settings
	}
	t.r = render.New(t.s, render.Options{Verbose: t.o.verbose, BellAfter: bell})
	t.ap = repl.NewApprover(t.s, t.r)
	return frontEnd{ask: t.ap, emit: t.r.Emit, plan: t.ap.ChoosePlan}
}

// runREPL starts the interactive session.
func (a *cli) runREPL(o *options) int {
	t := &terminal{a: a, o: o}
	sess, err := a.newSession(o, t.frontEnd)
	if err != nil {
		return a.fail(err)
	}
	defer a.closeSession(sess)

	// Ctrl+C belongs to the REPL (it stops a turn); SIGTERM ends the session.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	defer signal.Stop(term)
	go func() {
		select {
		case <-term:
			cancel()
		case <-ctx.Done():
		}
	}()

	banner := fmt.Sprintf("%s · %s %s · %s", versionString(), sess.ProviderName(), sess.Model(), sess.Root())
	if o.cont || o.resumeSet {
		banner += fmt.Sprintf("\nresumed session %s (%d messages)", sess.ID(), sess.Resumed())
	}
	for _, n := range sess.TakeNotices() { // build-time warnings (sandbox, settings) show at once
		banner += "\nwarning: " + n
	}
	return repl.Run(ctx, repl.Options{
		Streams:     t.s,
		Session:     sess,
		Renderer:    t.r,
		Approver:    t.ap,
		HistoryFile: filepath.Join(a.hewHome(), "history"),
		Banner:      banner,
		Editor:      firstSet(a.env.get("VISUAL"), a.env.get("EDITOR")),
	})
}

// firstSet is the first non-empty value.
func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// runInteractiveOnce runs one task with the terminal front-end: streamed
// text, tool lines, and questions asked on the terminal.
func (a *cli) runInteractiveOnce(o *options, text string) int {
	t := &terminal{a: a, o: o}
	sess, err := a.newSession(o, t.frontEnd)
	if err != nil {
		return a.fail(err)
	}
	defer a.closeSession(sess)
	ctx, stop := signalContext()
	defer stop()
	res := sess.Submit(ctx, text)
	t.r.Close()
	if res.StopReason != agent.StopCompleted && res.StopReason != agent.StopGoalMet {
		msg := "stopped: " + string(res.StopReason)
		if res.Err != "" {
			msg += ": " + res.Err
		}
		fmt.Fprintln(a.stderr, "hew: "+msg)
	}
	return exitCode(res)
}
