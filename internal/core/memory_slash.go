package core

import (
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/memory"
)

// The /memory command: the REPL hands its arguments to Session.Memory.

// memoryUsage is the help of /memory.
const memoryUsage = "/memory [list] · /memory show NAME · /memory open [NAME] (in $EDITOR; no NAME: the index) · /memory forget NAME · /memory path"

// memorySlash runs /memory ARGS and returns what to print. edit opens a file in
// the user's editor and returns when it is closed.
func memorySlash(s *memory.Store, args string, edit func(path string) error) (string, error) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	switch verb {
	case "", "list", "ls":
		list, err := s.List()
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "No memories for this project yet. /remember TEXT adds one.", nil
		}
		var b strings.Builder
		for _, m := range list {
			b.WriteString("  " + memory.ListLine(m) + "\n")
		}
		b.WriteString("(" + memoryUsage + ")")
		return b.String(), nil
	case "show":
		m, err := s.Get(rest)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s — %s\n%s\n\n%s", m.File(), m.Name, m.Description, m.Body), nil
	case "open", "edit":
		path := s.IndexPath()
		if rest != "" {
			m, err := s.Get(rest)
			if err != nil {
				return "", err
			}
			path = m.Path
		}
		if edit == nil {
			return "", fmt.Errorf("no editor available; the file is %s", path)
		}
		if err := edit(path); err != nil {
			return "", fmt.Errorf("editor: %w", err)
		}
		pruned, err := s.Reindex()
		if err != nil {
			return "", err
		}
		out := "Saved; the index is up to date (" + path + ")."
		if len(pruned) > 0 {
			out += fmt.Sprintf(" %d lower-value memories are no longer indexed.", len(pruned))
		}
		return out, nil
	case "forget", "rm", "remove":
		if rest == "" {
			return "", fmt.Errorf("usage: /memory forget NAME")
		}
		if err := s.Remove(rest); err != nil {
			return "", err
		}
		return "Forgot " + rest + ".", nil
	case "path":
		return s.Dir, nil
	}
	return "", fmt.Errorf("unknown /memory command %q; %s", verb, memoryUsage)
}
