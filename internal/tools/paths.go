package tools

import (
	"github.com/hew-dev/hew/internal/callenv"
	"github.com/hew-dev/hew/internal/fsutil"
)

// resolvePath is the containment-checked path resolution every file tool
// uses (the same scope as fsutil.Resolve). A tool that declares itself
// read-only may also read what hew saved for the model (tool results,
// memory).
func resolvePath(env *Env, t Tool, path string) (string, error) {
	return fsutil.ResolveIn(callenv.PathScope(env, t.ReadOnly(nil)), t.Name(), path)
}

func realRoot(root string) (string, error) { return fsutil.RealPath(root) }

func relTo(root, abs string) string { return fsutil.Rel(root, abs) }
