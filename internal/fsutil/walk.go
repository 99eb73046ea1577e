package fsutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/boyter/gocodewalker"
)

// ErrStop may be returned by a Walk callback to end the walk early without
// an error.
var ErrStop = errors.New("stop walking")

// Walk calls fn with the absolute path of every file under dir that git
// would not ignore (.gitignore, .ignore, .gitmodules are honoured; hidden
// files are included; .git, .hg and .svn are skipped; ignore files of the
// directories above dir up to the repository root apply too). The walk runs in
// parallel, so the order is unspecified; fn is called from one goroutine.
// It stops when ctx is done (returning ctx.Err()) or fn returns an error.
func Walk(ctx context.Context, dir string, fn func(abs string) error) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("walk %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fn(dir)
	}
	anc := newAncestorIgnore(dir)
	queue := make(chan *gocodewalker.File, 256)
	w := gocodewalker.NewFileWalker(dir, queue)
	w.IncludeHidden = true
	w.ExcludeDirectory = []string{".git", ".hg", ".svn"}
	done := make(chan error, 1)
	go func() { done <- w.Start() }()
	var stopErr error
	stopped := false
	for f := range queue {
		if stopped {
			continue // drain so the walker can finish
		}
		if err := ctx.Err(); err != nil {
			stopErr, stopped = err, true
			w.Terminate()
			continue
		}
		if anc.ignored(f.Location) {
			continue
		}
		if err := fn(f.Location); err != nil {
			stopErr, stopped = err, true
			w.Terminate()
		}
	}
	werr := <-done
	if errors.Is(stopErr, ErrStop) {
		return nil
	}
	if stopErr != nil {
		return stopErr
	}
	if werr != nil && !errors.Is(werr, gocodewalker.ErrTerminateWalk) {
		return fmt.Errorf("walk %s: %w", dir, werr)
	}
	return nil
}

// FileInfo is one file found by Glob.
type FileInfo struct {
	Path    string // absolute
	Rel     string // slash-separated, relative to the searched directory
	ModTime time.Time
	Size    int64
}

// Glob lists the files under dir whose slash-separated relative path
// matches the doublestar pattern ("**" spans directories, "{a,b}" braces),
// gitignore-aware, newest first (ties by path). An empty pattern matches
// every file.
func Glob(ctx context.Context, dir, pattern string) ([]FileInfo, error) {
	if pattern != "" && !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("invalid glob pattern %q", pattern)
	}
	var out []FileInfo
	err := Walk(ctx, dir, func(abs string) error {
		rel, err := filepath.Rel(dir, abs)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if pattern != "" && !doublestar.MatchUnvalidated(pattern, rel) {
			return nil
		}
		fi, err := os.Lstat(abs)
		if err != nil || fi.IsDir() {
			return nil
		}
		out = append(out, FileInfo{Path: abs, Rel: rel, ModTime: fi.ModTime(), Size: fi.Size()})
		return nil
	})
	SortNewest(out)
	return out, err
}

// SortNewest orders files newest first, ties by relative path.
func SortNewest(files []FileInfo) {
	sort.Slice(files, func(i, j int) bool {
		if !files[i].ModTime.Equal(files[j].ModTime) {
			return files[i].ModTime.After(files[j].ModTime)
		}
		return files[i].Rel < files[j].Rel
	})
}

// MatchName matches a glob filter the way ripgrep's --glob does: a pattern
// without "/" is tried against the base name, otherwise against the whole
// relative path.
func MatchName(pattern, rel string) bool {
	neg := strings.HasPrefix(pattern, "!")
	p := strings.TrimPrefix(pattern, "!")
	target := rel
	if !strings.Contains(p, "/") {
		target = filepath.Base(filepath.FromSlash(rel))
	} else {
		p = strings.TrimPrefix(p, "/")
	}
	ok := doublestar.MatchUnvalidated(p, target)
	return ok != neg
}
