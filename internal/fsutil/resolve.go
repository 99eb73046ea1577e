package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hew-dev/hew/internal/callenv"
)

// OutsideError is returned when a path resolves outside every allowed
// directory. Its message names the root so the model can correct itself.
type OutsideError struct {
	Tool, Path, Resolved, Root string
}

// Error names the path and the project root.
func (e *OutsideError) Error() string {
	shown := e.Resolved
	if e.Path != e.Resolved && e.Path != "" {
		shown = fmt.Sprintf("%s (resolves to %s)", e.Path, e.Resolved)
	}
	return fmt.Sprintf("%s: path %s is outside the project root %s; only paths under the root or an additional directory are allowed", e.Tool, shown, e.Root)
}

// AbsIn turns a model-supplied path into a clean absolute path: relative to
// root, "~/" through home, ".." resolved and symlinks followed (for a path
// that does not exist yet, the real path of its nearest existing parent plus
// the remaining components). It does not check containment.
func AbsIn(root, home, path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", errors.New("empty path")
	}
	switch {
	case p == "~":
		if home == "" {
			return "", fmt.Errorf("cannot expand %q: home directory unknown", path)
		}
		p = home
	case strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`):
		if home == "" {
			return "", fmt.Errorf("cannot expand %q: home directory unknown", path)
		}
		p = filepath.Join(home, p[2:])
	}
	if !filepath.IsAbs(p) {
		if root == "" {
			return "", fmt.Errorf("relative path %q with no project root", path)
		}
		p = filepath.Join(root, p)
	}
	return RealPath(filepath.Clean(p))
}

// RealPath follows symlinks in p. For a path that does not exist it resolves
// the nearest existing ancestor and appends the rest, so a new file's
// location is judged by where it will really be created.
func RealPath(p string) (string, error) {
	p = filepath.Clean(p)
	var rest []string
	cur := p
	for hops := 0; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		// A dangling symlink: follow it by hand, or a write through it
		// would land wherever it points.
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > 40 {
				return "", fmt.Errorf("resolve %s: too many levels of symbolic links", p)
			}
			target, rerr := os.Readlink(cur)
			if rerr != nil {
				return "", fmt.Errorf("resolve %s: %w", p, rerr)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			cur = filepath.Clean(target)
			continue
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// Within reports whether p equals dir or lies below it (both clean, absolute).
func Within(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// Resolve makes path absolute and real (see Abs) and refuses it when it lies
// outside the root, the additional directories and (for read-only tools)
// the read-only directories, unless AllowOutside accepts it.
func ResolveIn(s callenv.Scope, tool, path string) (string, error) {
	root := s.Root
	if root != "" {
		if r, err := RealPath(root); err == nil {
			root = r
		}
	}
	abs, err := AbsIn(root, s.HomeDir, path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	if Within(abs, root) {
		return abs, nil
	}
	dirs := s.AdditionalDirs
	if s.ReadOnly {
		dirs = append(append([]string(nil), dirs...), s.ReadOnlyDirs...)
	}
	for _, d := range dirs {
		if rd, err := RealPath(d); err == nil && Within(abs, rd) {
			return abs, nil
		}
	}
	if s.AllowOutside != nil && s.AllowOutside(tool, abs) {
		return abs, nil
	}
	return "", &OutsideError{Tool: tool, Path: path, Resolved: abs, Root: root}
}

// Rel shows abs relative to root when it is inside, else abs itself.
func Rel(root, abs string) string {
	if root != "" && Within(abs, root) {
		if r, err := filepath.Rel(root, abs); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return abs
}

// statMode returns the permission bits of an existing file, or def.
func statMode(p string, def fs.FileMode) fs.FileMode {
	if fi, err := os.Stat(p); err == nil {
		return fi.Mode().Perm()
	}
	return def
}
