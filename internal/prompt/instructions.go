package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxIncludeDepth bounds @path include chains.
const maxIncludeDepth = 5

// maxInstructionBytes bounds what one file may contribute.
const maxInstructionBytes = 64 * 1024

// Instructions are the project instructions gathered for a session.
type Instructions struct {
	Text    string
	Sources []string
}

// LoadInstructions gathers $HEW_HOME/AGENTS.md, then AGENTS.md and CLAUDE.md
// from the repository root down to root (outer first, so nearer files come
// later and win), then .hew/rules/*.md and .claude/rules/*.md of root.
// @path lines include other files, depth-limited and cycle-safe.
func LoadInstructions(root, homeDir, hewHome string) Instructions {
	l := &loader{home: homeDir, seen: map[string]bool{}}
	if hewHome != "" {
		l.file(filepath.Join(hewHome, "AGENTS.md"), 0)
	}
	for _, dir := range dirsUp(root) {
		l.file(filepath.Join(dir, "AGENTS.md"), 0)
		l.file(filepath.Join(dir, "CLAUDE.md"), 0)
	}
	for _, rules := range []string{filepath.Join(root, ".hew", "rules"), filepath.Join(root, ".claude", "rules")} {
		matches, _ := filepath.Glob(filepath.Join(rules, "*.md"))
		sort.Strings(matches)
		for _, m := range matches {
			l.file(m, 0)
		}
	}
	return Instructions{Text: strings.TrimSpace(l.out.String()), Sources: l.sources}
}

// dirsUp lists root and its parents up to the repository root (the nearest
// directory holding .git), outermost first. Without a repository only root.
func dirsUp(root string) []string {
	var dirs []string
	dir := root
	for {
		dirs = append(dirs, dir)
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return []string{root} // no repository: only the working directory
		}
		dir = parent
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

type loader struct {
	home    string
	seen    map[string]bool
	sources []string
	out     strings.Builder
}

func (l *loader) file(path string, depth int) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return
	}
	if l.seen[real] {
		return
	}
	l.seen[real] = true
	data, err := os.ReadFile(real)
	if err != nil {
		return
	}
	if len(data) > maxInstructionBytes {
		data = append(data[:maxInstructionBytes:maxInstructionBytes], []byte("\n[… truncated]")...)
	}
	l.sources = append(l.sources, path)
	fmt.Fprintf(&l.out, "Contents of %s:\n\n", path)
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if inc, ok := l.include(line, filepath.Dir(real)); ok {
			if depth+1 > maxIncludeDepth {
				fmt.Fprintf(&l.out, "%s (not included: include depth limit %d reached)\n", line, maxIncludeDepth)
				continue
			}
			l.out.WriteString("\n")
			l.file(inc, depth+1)
			continue
		}
		l.out.WriteString(line + "\n")
	}
	l.out.WriteString("\n")
}

// include recognises a line that is only an @path reference (@./x, @~/x,
// @/x, or @relative/x.md) and resolves it against dir.
func (l *loader) include(line, dir string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "@") || strings.ContainsAny(t, " \t") || len(t) < 2 {
		return "", false
	}
	p := t[1:]
	switch {
	case strings.HasPrefix(p, "~/"):
		if l.home == "" {
			return "", false
		}
		return filepath.Join(l.home, p[2:]), true
	case filepath.IsAbs(p):
		return p, true
	case strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.Contains(p, "/") || strings.HasSuffix(p, ".md"):
		return filepath.Join(dir, p), true
	}
	return "", false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
