// Package fsutil is the file-system toolbox shared by hew's tools, the
// permission engine and state writers: containment-checked path resolution
// against a call's environment (callenv), atomic writes, binary detection
// and gitignore-aware walking and globbing. It is a utility package: it
// imports no domain package.
package fsutil

import "github.com/hew-dev/hew/internal/callenv"

// Resolve turns a model-supplied path into an absolute, symlink-free path
// and refuses it (naming the project root) when it lies outside env.Root,
// env.AdditionalDirs and, for a tool that only reads (reading), the
// session's tool-results directory, unless env.AllowOutside accepts it.
// Tools call it as the last line of defence; the permission engine decides
// separately.
func Resolve(env *callenv.Env, tool string, reading bool, path string) (string, error) {
	return ResolveIn(callenv.PathScope(env, reading), tool, path)
}

// Abs resolves path like Resolve (root-relative, "~/", "..", symlinks, real
// parent for new files) without any containment check, for callers that
// decide about outside paths themselves (permission rules).
func Abs(env *callenv.Env, path string) (string, error) {
	return AbsIn(env.Root, env.HomeDir, path)
}
