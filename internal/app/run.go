package app

import (
	"context"
	"errors"
	"fmt"
	rootcmd "github.com/hew-dev/hew/internal/cmd/root"
	"strings"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/core"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/headless"
)

// root runs `hew [flags] [PROMPT]`.
func (a *cli) root(args []string) int {
	o, err := rootcmd.Parse(args)
	if errors.Is(err, rootcmd.ErrHelp) {
		fmt.Fprint(a.stdout, rootcmd.Help())
		return ExitOK
	}
	if err == nil {
		err = headless.CheckFormats(o.OutputFormat, o.InputFormat)
	}
	if err != nil {
		return a.errorf(ExitUsage, "%v", err)
	}
	if o.Version {
		fmt.Fprintln(a.stdout, versionString())
		return ExitOK
	}

	kind := term.ClassifyStdin(a.stdin)
	text := strings.TrimSpace(strings.Join(o.Args, " "))
	if o.InputFormat == "stream-json" {
		return a.runStreamInput(o, text)
	}
	if kind == term.StdinPiped {
		if text, err = term.AppendPiped(text, a.stdin); err != nil {
			return a.errorf(ExitError, "reading stdin: %v", err)
		}
	}

	switch {
	case text != "":
		// Only a terminal can be asked; a piped prompt runs like -p.
		interactive := !o.Print && kind == term.StdinTerminal
		return a.runOnce(o, text, interactive)
	case o.Print:
		return a.errorf(ExitUsage, "-p needs a prompt: an argument or text on stdin")
	case kind == term.StdinTerminal:
		return a.runREPL(o)
	case kind == term.StdinPiped:
		return a.errorf(ExitUsage, "the prompt on stdin is empty")
	default:
		return a.errorf(ExitUsage, "no prompt: give one as an argument or on stdin, or start hew in a terminal for the interactive session")
	}
}

// runOnce runs one task: headless (-p, or no terminal to ask) writes
// text/json/stream-json; interactive uses the terminal renderer and asks.
func (a *cli) runOnce(o *rootcmd.Options, text string, interactive bool) int {
	if interactive {
		return a.runInteractiveOnce(o, text)
	}
	return a.runHeadless(o, func(ctx context.Context, w *headless.Writer, sess *core.Session) int {
		res := w.Run(ctx, sess, text)
		if err := w.Err(); err != nil && res.StopReason == agent.StopCompleted {
			return a.errorf(ExitError, "writing output: %v", err)
		}
		return exitCode(res)
	})
}

// runStreamInput holds a conversation with a program over stdin/stdout
// (--input-format stream-json). The exit code is that of the last turn (0
// when there was none); a bad last line is a usage error.
func (a *cli) runStreamInput(o *rootcmd.Options, first string) int {
	return a.runHeadless(o, func(ctx context.Context, w *headless.Writer, sess *core.Session) int {
		res, err := w.Converse(ctx, sess, a.stdin, first)
		var bad *headless.InputError
		switch {
		case errors.Is(err, context.Canceled):
			return ExitInterrupted
		case errors.As(err, &bad):
			return ExitUsage
		case err != nil:
			return a.errorf(ExitError, "reading stdin: %v", err)
		}
		return exitCode(res)
	})
}

// runHeadless builds a session whose events go to a headless writer and
// hands both to run, with a context cancelled by Ctrl+C.
func (a *cli) runHeadless(o *rootcmd.Options, run func(context.Context, *headless.Writer, *core.Session) int) int {
	format, _ := headless.ParseFormat(o.OutputFormat)
	w := headless.New(headless.Options{Format: format, Out: a.stdout, Err: a.stderr, Verbose: o.Verbose})
	sess, err := a.newSession(o, func(_ *config.Settings, c *core.Options) { c.Emit = w.Handle })
	if err != nil {
		return a.fail(err)
	}
	defer a.closeSession(sess)
	ctx, stop := term.InterruptContext()
	defer stop()
	return run(ctx, w, sess)
}

// exitCode maps a turn's stop reason to the SPEC's exit codes.
func exitCode(r agent.TurnResult) int {
	switch r.StopReason {
	case agent.StopCompleted, agent.StopGoalMet:
		return ExitOK
	case agent.StopMaxTurns, agent.StopMaxBudget:
		return ExitLimit
	case agent.StopAborted:
		return ExitInterrupted
	}
	return ExitError
}
