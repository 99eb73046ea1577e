package tools

import (
	"github.com/hew-dev/hew/internal/callenv"
	"github.com/hew-dev/hew/internal/fsutil"
)

// resolvePath is the containment-checked path resolution every file tool
// uses (the same scope as fsutil.Resolve).
func resolvePath(env *Env, tool, path string) (string, error) {
	return fsutil.ResolveIn(callenv.PathScope(env, tool), tool, path)
}

func realRoot(root string) (string, error) { return fsutil.RealPath(root) }

func relTo(root, abs string) string { return fsutil.Rel(root, abs) }
