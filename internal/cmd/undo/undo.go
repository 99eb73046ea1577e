// Package undo holds the `hew checkpoints` and `hew undo` commands: the
// headless face of the per-turn checkpoints that /undo and /rewind use in
// the REPL. The store itself is internal/checkpoint.
package undo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/checkpoint"
)

// Exit codes of these commands (SPEC section 1).
const (
	exitOK      = 0
	exitNothing = 1
	exitUsage   = 2
)

// Options is what the commands need; the caller opens the store of the
// current project.
type Options struct {
	Store  *checkpoint.Store
	Stdout io.Writer
	Stderr io.Writer
}

const checkpointsUsage = `usage: hew checkpoints list [--session ID] [--json]

The turns of a session that changed files, oldest first, with what each
changed. Without --session: the session here that changed files last.
`

const undoUsage = `usage: hew undo [--session ID] [--turns N] [--dry-run] [--force]

Take back the file changes of the last N turns (default 1) of the session
here that changed files last (or --session ID), whatever tool made them.
A file changed since the turn (by you or another program) is left alone and
shown with a diff; --force takes it back anyway. Exit 0 when something was
undone, 1 when nothing could be, 2 on bad usage.
`

// Checkpoints runs `hew checkpoints ARGS`.
func Checkpoints(o Options, args []string) int {
	fs := pflag.NewFlagSet("checkpoints", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	session := fs.String("session", "", "")
	asJSON := fs.Bool("json", false, "")
	help := fs.BoolP("help", "h", false, "")
	if err := fs.Parse(args); err != nil {
		return usageErr(o, err.Error(), checkpointsUsage)
	}
	if *help {
		fmt.Fprint(o.Stdout, checkpointsUsage)
		return exitOK
	}
	rest := fs.Args()
	if len(rest) == 0 {
		rest = []string{"list"}
	}
	if rest[0] != "list" || len(rest) != 1 {
		return usageErr(o, fmt.Sprintf("unknown arguments %q", strings.Join(rest, " ")), checkpointsUsage)
	}
	id, err := pickSession(o.Store, *session)
	if err != nil {
		fmt.Fprintln(o.Stderr, "hew:", err)
		return exitNothing
	}
	var turns []*checkpoint.Turn
	if id != "" {
		if turns, err = o.Store.Turns(id); err != nil {
			fmt.Fprintln(o.Stderr, "hew:", err)
			return exitNothing
		}
	}
	if *asJSON {
		type row struct {
			Seq        int                     `json:"turn"`
			Checkpoint string                  `json:"checkpoint"`
			Prompt     string                  `json:"prompt"`
			Start      string                  `json:"start"`
			End        string                  `json:"end"`
			Undone     bool                    `json:"undone"`
			Files      []map[string]string     `json:"files"`
			Calls      []checkpoint.CallChange `json:"calls"`
			Untracked  string                  `json:"untracked,omitempty"`
		}
		out := struct {
			Session string `json:"session"`
			Store   string `json:"store"`
			Turns   []row  `json:"turns"`
		}{Session: id, Store: o.Store.Kind(), Turns: []row{}}
		for _, t := range turns {
			r := row{Seq: t.Seq, Checkpoint: t.ID(), Prompt: t.Prompt, Start: t.Start.Format("2006-01-02T15:04:05Z07:00"),
				End: t.End.Format("2006-01-02T15:04:05Z07:00"), Undone: t.Undone, Calls: t.Calls, Untracked: t.Untracked}
			for _, c := range t.Changes {
				r.Files = append(r.Files, map[string]string{"path": c.Path, "change": c.Kind()})
			}
			out.Turns = append(out.Turns, r)
		}
		data, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(o.Stdout, string(data))
		return exitOK
	}
	if len(turns) == 0 {
		fmt.Fprintln(o.Stdout, "no checkpoints: no turn here has changed files yet")
		return exitOK
	}
	fmt.Fprintf(o.Stdout, "session %s (%s store)\n", id, o.Store.Kind())
	for _, t := range turns {
		state := ""
		if t.Undone {
			state = "  [undone]"
		}
		fmt.Fprintf(o.Stdout, "turn %d  %s  %d file(s)%s  %s\n", t.Seq, t.End.Local().Format("2006-01-02 15:04"), len(t.Changes), state, t.Title(60))
		for _, c := range t.Changes {
			fmt.Fprintf(o.Stdout, "  %-8s %s\n", c.Kind(), c.Path)
		}
	}
	return exitOK
}

// Undo runs `hew undo ARGS`.
func Undo(o Options, args []string) int {
	fs := pflag.NewFlagSet("undo", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	session := fs.String("session", "", "")
	turns := fs.Int("turns", 1, "")
	dry := fs.Bool("dry-run", false, "")
	force := fs.Bool("force", false, "")
	help := fs.BoolP("help", "h", false, "")
	if err := fs.Parse(args); err != nil {
		return usageErr(o, err.Error(), undoUsage)
	}
	if *help {
		fmt.Fprint(o.Stdout, undoUsage)
		return exitOK
	}
	if fs.NArg() > 0 {
		return usageErr(o, fmt.Sprintf("unexpected argument %q", fs.Arg(0)), undoUsage)
	}
	if *turns < 1 {
		return usageErr(o, fmt.Sprintf("--turns must be at least 1, not %d", *turns), undoUsage)
	}
	id, err := pickSession(o.Store, *session)
	if err != nil {
		fmt.Fprintln(o.Stderr, "hew:", err)
		return exitNothing
	}
	if id == "" {
		fmt.Fprintln(o.Stderr, "hew: nothing to undo: no turn here has changed files")
		return exitNothing
	}
	plan, err := o.Store.PlanUndo(id, *turns, *force)
	if err != nil {
		fmt.Fprintln(o.Stderr, "hew:", err)
		return exitNothing
	}
	fmt.Fprint(o.Stdout, plan.Summary())
	if *dry {
		if plan.Empty() {
			return exitNothing
		}
		fmt.Fprintln(o.Stdout, "(dry run: nothing was changed)")
		return exitOK
	}
	if plan.Empty() {
		if len(plan.Turns) > 0 && len(plan.Refused) == 0 {
			// The files already are as before: mark the turns undone.
			plan.Apply()
		}
		return exitNothing
	}
	done, err := plan.Apply()
	if err != nil {
		fmt.Fprintf(o.Stderr, "hew: undo stopped after %d file(s): %v\n", len(done), err)
		return exitNothing
	}
	fmt.Fprintf(o.Stdout, "undone: %d file(s) restored", len(done))
	if n := len(plan.Refused); n > 0 {
		fmt.Fprintf(o.Stdout, ", %d refused", n)
	}
	fmt.Fprintln(o.Stdout)
	return exitOK
}

// pickSession is the given id, or the session whose checkpoints changed
// last ("" when there is none).
func pickSession(s *checkpoint.Store, id string) (string, error) {
	list, err := s.Sessions()
	if err != nil {
		return "", err
	}
	if id == "" {
		if len(list) == 0 {
			return "", nil
		}
		return list[0].ID, nil
	}
	for _, si := range list {
		if si.ID == id || strings.HasSuffix(si.ID, id) {
			return si.ID, nil
		}
	}
	return "", errors.New("no checkpoints for session " + id + " in this directory")
}

func usageErr(o Options, msg, usage string) int {
	fmt.Fprintf(o.Stderr, "hew: %s\n%s", msg, usage)
	return exitUsage
}
