package repl

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hew-dev/hew/internal/permission"
)

// cycleModes is the Shift+Tab order. bypassPermissions and dontAsk are
// left out on purpose: a stray key must never switch the checks off; they
// stay reachable with /mode.
var cycleModes = []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan, permission.ModeAuto}

// cycleMode switches to the next permission mode (Shift+Tab) and returns
// the prompt that shows it.
func (ss *session) cycleMode() string {
	cur := ss.ag.Mode()
	next := cycleModes[0]
	for i, m := range cycleModes {
		if m == cur {
			next = cycleModes[(i+1)%len(cycleModes)]
		}
	}
	ss.ag.SetMode(next)
	return ss.prompt()
}

// showLastOutput prints the last tool call's whole output (Ctrl+O).
func (ss *session) showLastOutput() { ss.r.ShowLastToolOutput() }

// maxCompletions bounds the candidates Tab lists.
const maxCompletions = 200

// complete offers completions for the word before the cursor: slash
// commands and skills for a leading "/word", files and directories for
// "@path".
func (ss *session) complete(buf []rune, pos int) (int, []string) {
	start := pos
	for start > 0 && buf[start-1] != ' ' && buf[start-1] != '\n' {
		start--
	}
	word := string(buf[start:pos])
	switch {
	case strings.HasPrefix(word, "/") && start == 0:
		var out []string
		for _, c := range commands {
			if strings.HasPrefix("/"+c.name, word) {
				out = append(out, "/"+c.name)
			}
		}
		for _, sk := range ss.ag.Skills() {
			if strings.HasPrefix("/"+sk.Name, word) {
				out = append(out, "/"+sk.Name)
			}
		}
		return start, out
	case strings.HasPrefix(word, "@"):
		return start, completePath(word[1:], "@", ss.opts.WorkDir, ss.opts.Home)
	}
	return start, nil
}

// completePath lists the entries that complete p (relative to the working
// directory, or absolute, or ~/), directories with a trailing slash, each
// prefixed with prefix. Hidden entries show only when asked for with a dot.
func completePath(p, prefix, workDir, home string) []string {
	dir, base := filepath.Split(p)
	look := dir
	if look == "" {
		look = "."
	}
	if !filepath.IsAbs(look) && !strings.HasPrefix(look, "~/") {
		look = filepath.Join(workDir, look)
	}
	if strings.HasPrefix(look, "~/") && home != "" {
		look = filepath.Join(home, look[2:])
	}
	ents, err := os.ReadDir(look)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, prefix+dir+name)
		if len(out) >= maxCompletions {
			break
		}
	}
	sort.Strings(out)
	return out
}
