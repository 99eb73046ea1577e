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
	dirs := dirsUp(root)
	for _, dir := range dirs {
		l.file(filepath.Join(dir, "AGENTS.md"), 0)
		l.file(filepath.Join(dir, "CLAUDE.md"), 0)
	}
	for _, dir := range dirs {
		for _, rules := range []string{filepath.Join(dir, ".hew", "rules"), filepath.Join(dir, ".claude", "rules")} {
			matches, _ := filepath.Glob(filepath.Join(rules, "*.md"))
			sort.Strings(matches)
			for _, m := range matches {
				l.file(m, 0)
			}
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
	fenced := false
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		var incs []string
		if !fenced {
			incs = l.includes(line, filepath.Dir(real))
		}
		// A line that is only an include is replaced by the file; an
		// include inside prose keeps the line and adds the file after it.
		if !(len(incs) == 1 && strings.TrimSpace(line) == "@"+incs[0]) {
			l.out.WriteString(line + "\n")
		}
		for _, inc := range incs {
			if depth+1 > maxIncludeDepth {
				fmt.Fprintf(&l.out, "(@%s not included: include depth limit %d reached)\n", inc, maxIncludeDepth)
				continue
			}
			l.out.WriteString("\n")
			l.file(l.resolve(inc, filepath.Dir(real)), depth+1)
		}
	}
	l.out.WriteString("\n")
}

// includes finds @path references in a line (@./x, @~/x, @/x, @dir/x,
// @x.md), outside `code spans`. It returns the references without the @.
func (l *loader) includes(line, dir string) []string {
	var out []string
	inCode := false
	for _, f := range strings.Fields(line) {
		if strings.Count(f, "`")%2 == 1 {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(f, "@") || len(f) < 2 {
			continue
		}
		p := strings.TrimRight(f[1:], ".,;:)")
		if strings.HasPrefix(p, "~/") || filepath.IsAbs(p) || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") ||
			strings.Contains(p, "/") || strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
	}
	return out
}

// resolve turns an include reference into a path.
func (l *loader) resolve(p, dir string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		if l.home == "" {
			return ""
		}
		return filepath.Join(l.home, p[2:])
	case filepath.IsAbs(p):
		return p
	}
	return filepath.Join(dir, p)
}
