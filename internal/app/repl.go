package app

import (
	"context"
	rootcmd "github.com/hew-dev/hew/internal/cmd/root"
	"path/filepath"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/core"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/repl"
)

// terminal makes the front-end of interactive runs once the settings are
// known and gives the session c its approver, renderer and plan menu.
func (a *cli) terminal(o *rootcmd.Options, settings *config.Settings, c *core.Options) *repl.Terminal {
	t := repl.NewTerminal(term.FromIO(a.stdin, a.stdout, a.stderr, term.EnvFromList(a.environ)), o.Verbose, settings.Bell)
	c.Approver, c.Emit, c.DecidePlan = t.Approver, t.Renderer.Emit, t.Approver.ChoosePlan
	return t
}

// runREPL starts the interactive session.
func (a *cli) runREPL(o *rootcmd.Options) int {
	var t *repl.Terminal
	sess, err := a.newSession(o, func(s *config.Settings, c *core.Options) { t = a.terminal(o, s, c) })
	if err != nil {
		return a.fail(err)
	}
	defer a.closeSession(sess)

	editor := a.getenv("VISUAL")
	if editor == "" {
		editor = a.getenv("EDITOR")
	}
	// Ctrl+C and SIGTERM are the REPL's: one stops a turn, the other ends
	// the session.
	return repl.Run(context.Background(), repl.Options{
		Streams:     t.Streams,
		Session:     sess,
		Renderer:    t.Renderer,
		Approver:    t.Approver,
		HistoryFile: filepath.Join(a.hewHome(), "history"),
		Banner:      repl.Banner(versionString(), sess, o.Continue || o.ResumeSet),
		Editor:      editor,
		Home:        a.homeDir(),
	})
}

// runInteractiveOnce runs one task with the terminal front-end: streamed
// text, tool lines, and questions asked on the terminal.
func (a *cli) runInteractiveOnce(o *rootcmd.Options, text string) int {
	var t *repl.Terminal
	sess, err := a.newSession(o, func(s *config.Settings, c *core.Options) { t = a.terminal(o, s, c) })
	if err != nil {
		return a.fail(err)
	}
	defer a.closeSession(sess)
	ctx, stop := term.InterruptContext()
	defer stop()
	return exitCode(t.RunOnce(ctx, sess, text))
}
