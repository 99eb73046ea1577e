// Package sessions is `hew sessions list|show|rm`: the sessions of the
// current directory, read through internal/session's API.
package sessions

import (
	"fmt"
	"io"
	"strings"

	"github.com/hew-dev/hew/internal/cmd/cmdutil"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/session"
)

const usage = `usage: hew sessions list|show ID|rm ID

Sessions of the current directory, newest first.
  list      one line per session: id, last change, messages, first prompt
  show ID   the conversation of a session (any directory's)
  rm ID     delete a session of this directory
`

// Options is what the command needs: where it writes, $HEW_HOME and the
// project root whose sessions it lists.
type Options struct {
	Stdout, Stderr io.Writer
	HewHome, Root  string
}

// Run runs `hew sessions ARGS`. It returns the exit code: 0 done, 1
// failure, 2 bad usage.
func Run(o Options, args []string) int {
	stdout, stderr, home, root := o.Stdout, o.Stderr, o.HewHome, o.Root
	if cmdutil.WantsHelp(args) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if len(args) == 0 {
		args = []string{"list"}
	}
	dir := session.Dir(home, root)
	switch args[0] {
	case "list", "ls":
		if len(args) != 1 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		list, err := session.List(dir)
		if err != nil {
			fmt.Fprintln(stderr, "hew:", err)
			return 1
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no sessions in this directory")
			return 0
		}
		for _, s := range list {
			fmt.Fprintf(stdout, "%s  %s  %3d msgs  %s\n", s.ID, s.Modified.Local().Format("2006-01-02 15:04"), s.Messages, s.Title)
		}
		return 0
	case "show":
		if len(args) != 2 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		path, err := session.Find(home, args[1])
		if err != nil {
			fmt.Fprintln(stderr, "hew:", err)
			return 1
		}
		s, err := session.Load(path)
		if err != nil {
			fmt.Fprintln(stderr, "hew:", err)
			return 1
		}
		fmt.Fprintf(stdout, "session %s  cwd %s  model %s  created %s\n", s.Meta.ID, s.Meta.Cwd, s.Meta.Model, s.Meta.Created.Local().Format("2006-01-02 15:04"))
		if s.Skipped > 0 || s.Repaired > 0 {
			fmt.Fprintf(stdout, "(repaired: %d unreadable line(s) skipped, %d interrupted tool call(s))\n", s.Skipped, s.Repaired)
		}
		if s.Meta.Parent != "" {
			fmt.Fprintf(stdout, "sub-agent transcript of session %s: %s\n", s.Meta.Parent, s.Meta.Title)
		}
		for _, m := range s.Messages {
			writeMessage(stdout, m, s.Changes)
		}
		if side := session.Sidechains(path); len(side) > 0 {
			fmt.Fprintf(stdout, "\nsub-agents (hew sessions show ID for a transcript):\n")
			for _, sc := range side {
				fmt.Fprintf(stdout, "  %s  %3d msgs  %s\n", sc.ID, sc.Messages, sc.Title)
			}
		}
		return 0
	case "rm", "remove", "delete":
		if len(args) != 2 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		if err := session.Remove(dir, args[1]); err != nil {
			fmt.Fprintln(stderr, "hew:", err)
			return 1
		}
		fmt.Fprintf(stdout, "removed session %s\n", args[1])
		return 0
	default:
		fmt.Fprintf(stderr, "hew sessions: unknown command %q\n%s", args[0], usage)
		return 2
	}
}

func writeMessage(w io.Writer, m llm.Message, changes map[string]session.CallChanges) {
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			t := strings.TrimSpace(session.StripReminder(b.Text))
			if t != "" {
				fmt.Fprintf(w, "\n%s: %s\n", m.Role, t)
			}
		case llm.BlockThinking:
			fmt.Fprintf(w, "\n(thinking) %s\n", shorten(b.Text, 200))
		case llm.BlockToolUse:
			fmt.Fprintf(w, "  → %s %s\n", b.Name, shorten(string(b.Input), 200))
		case llm.BlockToolResult:
			mark := "←"
			if b.IsError {
				mark = "← error:"
			}
			fmt.Fprintf(w, "  %s %s\n", mark, shorten(b.Content, 200))
			if c, ok := changes[b.ID]; ok {
				fmt.Fprintf(w, "    changed %s (checkpoint %s)\n", strings.Join(c.Files, ", "), c.Checkpoint)
			}
		}
	}
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
