package fsutil

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	gitignore "github.com/boyter/gocodewalker/go-gitignore"
)

// ancestorIgnore applies the .gitignore/.ignore files of the directories
// above a walk's start, up to the repository root, the way git and ripgrep
// do: searching "web/" must still skip the node_modules/ the root
// .gitignore excludes. gocodewalker only reads ignore files from the start
// directory down.
type ancestorIgnore struct {
	start    string
	matchers []gitignore.GitIgnore // repository root first
	dirCache map[string]bool
}

// newAncestorIgnore returns nil when start is not inside a repository below
// its root (no .git above it) or no ancestor has ignore files.
func newAncestorIgnore(start string) *ancestorIgnore {
	if exists(filepath.Join(start, ".git")) {
		return nil
	}
	var chain []string
	found := false
	for d := filepath.Dir(start); ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if exists(filepath.Join(d, ".git")) {
			found = true
			break
		}
		if filepath.Dir(d) == d || len(chain) > 64 {
			break
		}
	}
	if !found {
		return nil
	}
	a := &ancestorIgnore{start: start, dirCache: map[string]bool{}}
	for i := len(chain) - 1; i >= 0; i-- {
		for _, name := range []string{".gitignore", ".ignore"} {
			data, err := os.ReadFile(filepath.Join(chain[i], name))
			if err != nil || len(bytes.TrimSpace(data)) == 0 {
				continue
			}
			a.matchers = append(a.matchers, gitignore.New(bytes.NewReader(data), chain[i], nil))
		}
	}
	if len(a.matchers) == 0 {
		return nil
	}
	return a
}

// ignored reports whether the file abs (below start), or a directory
// between start and it, is excluded by an ancestor ignore file.
func (a *ancestorIgnore) ignored(abs string) bool {
	if a == nil {
		return false
	}
	rel, err := filepath.Rel(a.start, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	cur := a.start
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		isDir := i < len(parts)-1
		if isDir {
			if v, ok := a.dirCache[cur]; ok {
				if v {
					return true
				}
				continue
			}
		}
		v := a.match(cur, isDir)
		if isDir {
			a.dirCache[cur] = v
		}
		if v {
			return true
		}
	}
	return false
}

func (a *ancestorIgnore) match(p string, isDir bool) bool {
	ignored := false
	for _, m := range a.matchers {
		if mt := m.Absolute(p, isDir); mt != nil {
			ignored = mt.Ignore()
		}
	}
	return ignored
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
