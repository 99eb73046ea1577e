// Package fsutil is the file-system toolbox shared by hew's tools, the
// permission engine and state writers: containment-checked path resolution
// against a tools.Env, atomic writes, binary detection and gitignore-aware
// walking and globbing. The primitives live in fsutil/fscore so that package
// tools can use them without an import cycle; this package adds the
// Env-based entry points.
package fsutil

import (
	"context"
	"io/fs"

	"github.com/hew-dev/hew/internal/fsutil/fscore"
	"github.com/hew-dev/hew/internal/tools"
)

// Resolve turns a model-supplied path into an absolute, symlink-free path
// and refuses it (naming the project root) when it lies outside env.Root,
// env.AdditionalDirs and, for reading tools, the session's tool-results
// directory, unless env.AllowOutside accepts it. Tools call it as the last
// line of defence; the permission engine decides separately.
func Resolve(env *tools.Env, tool, path string) (string, error) {
	return fscore.Resolve(tools.PathScope(env, tool), tool, path)
}

// Abs resolves path like Resolve (root-relative, "~/", "..", symlinks, real
// parent for new files) without any containment check, for callers that
// decide about outside paths themselves (permission rules).
func Abs(env *tools.Env, path string) (string, error) {
	return fscore.Abs(env.Root, env.HomeDir, path)
}

// Within reports whether the clean absolute path p is dir or below it.
func Within(p, dir string) bool { return fscore.Within(p, dir) }

// WriteFileAtomic writes data via a temporary file and rename, keeping an
// existing file's mode (new files get perm) and creating parent directories.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return fscore.WriteFileAtomic(path, data, perm)
}

// IsBinary reports whether the start of a file looks binary.
func IsBinary(data []byte) bool { return fscore.IsBinary(data) }

// FileIsBinary sniffs the start of the file at path.
func FileIsBinary(path string) (bool, error) { return fscore.FileIsBinary(path) }

// Walk visits every non-ignored file under dir (see fscore.Walk).
func Walk(ctx context.Context, dir string, fn func(abs string) error) error {
	return fscore.Walk(ctx, dir, fn)
}

// FileInfo is one file found by Glob.
type FileInfo = fscore.FileInfo

// Glob lists non-ignored files under dir matching a doublestar pattern,
// newest first.
func Glob(ctx context.Context, dir, pattern string) ([]FileInfo, error) {
	return fscore.Glob(ctx, dir, pattern)
}
