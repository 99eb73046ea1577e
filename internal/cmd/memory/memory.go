// Package memory is `hew memory list|show|add|rm|path`: the project's
// long-term memory through internal/memory's store.
package memory

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/memory"
)

const usage = `usage: hew memory list|show NAME|add [--type T] [--name N] [--description D] TEXT|rm NAME|path

Long-term memory of this project: one file per memory under the memory
directory, indexed in MEMORY.md. With each message hew recalls the memories
that fit it.
  list        one line per memory (type, file, last update, description)
  show NAME   a memory with its source and dates
  add TEXT    remember TEXT (or standard input when TEXT is -); --type user|feedback|project|reference
              (default project); text that looks like a key, token or password is refused
  rm NAME     forget a memory
  path        the memory directory
`

// Options is what the command needs: its streams (Stdin feeds `add -`;
// nil means none) and the project's store.
type Options struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Store          *memory.Store
}

// Run runs `hew memory ARGS` and returns the exit code.
func Run(o Options, args []string) int {
	stdin, stdout, stderr, s := o.Stdin, o.Stdout, o.Stderr, o.Store
	for i, a := range args {
		if a == "-h" || a == "--help" || (i == 0 && a == "help") {
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	if len(args) == 0 {
		args = []string{"list"}
	}
	switch args[0] {
	case "path":
		fmt.Fprintln(stdout, s.Dir)
		return 0
	case "list", "ls":
		list, err := s.List()
		if err != nil {
			fmt.Fprintln(stderr, "hew:", err)
			return 1
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no memories for this project")
			return 0
		}
		for _, m := range list {
			fmt.Fprintln(stdout, memory.ListLine(m))
		}
		return 0
	case "show":
		if len(args) != 2 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		m, err := s.Get(args[1])
		if err != nil {
			fmt.Fprintln(stderr, "hew:", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s — %s\n%s\n", m.File(), m.Name, m.Path)
		fmt.Fprintf(stdout, "type %s · created %s · updated %s", m.Type, memory.Day(m.Created), memory.Day(m.Updated))
		if m.Source != "" {
			fmt.Fprintf(stdout, " · source: %s", m.Source)
		}
		fmt.Fprintf(stdout, "\n%s\n\n%s\n", m.Description, m.Body)
		return 0
	case "rm", "remove":
		if len(args) != 2 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		if err := s.Remove(args[1]); err != nil {
			fmt.Fprintln(stderr, "hew:", err)
			return 1
		}
		fmt.Fprintf(stdout, "forgot %s\n", args[1])
		return 0
	case "add":
		fs := pflag.NewFlagSet("memory add", pflag.ContinueOnError)
		fs.SetOutput(stderr)
		typ := fs.String("type", "project", "user, feedback, project or reference")
		name := fs.String("name", "", "file name (derived from the text when empty)")
		desc := fs.String("description", "", "one-line description")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		text := strings.Join(fs.Args(), " ")
		if text == "-" || (text == "" && stdin != nil) {
			data, err := io.ReadAll(io.LimitReader(stdin, memory.MaxBody+1))
			if err != nil {
				fmt.Fprintln(stderr, "hew:", err)
				return 1
			}
			text = string(data)
		}
		res, err := s.Add(memory.Memory{Type: *typ, Name: *name, Description: *desc, Body: text, Source: "user via hew memory add"})
		if err != nil {
			fmt.Fprintln(stderr, "hew:", err)
			return 2
		}
		fmt.Fprintf(stdout, "remembered %s (%s)\n", res.Memory.File(), res.Memory.Name)
		reportPruned(stderr, res.Pruned)
		return 0
	default:
		fmt.Fprintf(stderr, "hew memory: unknown command %q\n%s", args[0], usage)
		return 2
	}
}

// reportPruned says which memories the index left out, so pruning is never
// silent.
func reportPruned(w io.Writer, pruned []string) {
	if len(pruned) == 0 {
		return
	}
	fmt.Fprintf(w, "hew: the memory index is full (%d lines / %d KB): %d lower-value memories are no longer indexed or recalled (their files stay):\n", memory.MaxIndexLines, memory.MaxIndexBytes/1024, len(pruned))
	for i, l := range pruned {
		if i == 5 {
			fmt.Fprintf(w, "  … and %d more\n", len(pruned)-5)
			break
		}
		fmt.Fprintln(w, "  "+l)
	}
}
