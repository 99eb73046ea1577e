package app

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/repl"
)

// terminal makes the front-end of interactive runs, once the settings are
// known, and sets t to it.
func (a *cli) terminal(o *options, t **repl.Terminal) func(*config.Settings) frontEnd {
	return func(settings *config.Settings) frontEnd {
		*t = repl.NewTerminal(term.FromIO(a.stdin, a.stdout, a.stderr, term.EnvFromList(a.environ)), o.verbose, settings.Bell)
		return frontEnd{ask: (*t).Approver, emit: (*t).Renderer.Emit, plan: (*t).Approver.ChoosePlan}
	}
}

// runREPL starts the interactive session.
func (a *cli) runREPL(o *options) int {
	var t *repl.Terminal
	sess, err := a.newSession(o, a.terminal(o, &t))
	if err != nil {
		return a.fail(err)
	}
	defer a.closeSession(sess)

	// Ctrl+C belongs to the REPL (it stops a turn); SIGTERM ends the session.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigterm := make(chan os.Signal, 1)
	signal.Notify(sigterm, syscall.SIGTERM)
	defer signal.Stop(sigterm)
	go func() {
		select {
		case <-sigterm:
			cancel()
		case <-ctx.Done():
		}
	}()
	editor := a.getenv("VISUAL")
	if editor == "" {
		editor = a.getenv("EDITOR")
	}
	return repl.Run(ctx, repl.Options{
		Streams:     t.Streams,
		Session:     sess,
		Renderer:    t.Renderer,
		Approver:    t.Approver,
		HistoryFile: filepath.Join(a.hewHome(), "history"),
		Banner:      repl.Banner(versionString(), sess, o.cont || o.resumeSet),
		Editor:      editor,
	})
}

// runInteractiveOnce runs one task with the terminal front-end: streamed
// text, tool lines, and questions asked on the terminal.
func (a *cli) runInteractiveOnce(o *options, text string) int {
	var t *repl.Terminal
	sess, err := a.newSession(o, a.terminal(o, &t))
	if err != nil {
		return a.fail(err)
	}
	defer a.closeSession(sess)
	ctx, stop := signalContext()
	defer stop()
	return exitCode(t.RunOnce(ctx, sess, text))
}
