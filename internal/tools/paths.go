package tools

import (
	"path/filepath"

	"github.com/hew-dev/hew/internal/fsutil/fscore"
)

// readingTools may also read the session's persisted tool results.
var readingTools = map[string]bool{"read_file": true, "list_files": true, "grep_search": true}

// PathScope describes which paths tool may touch in env. fsutil.Resolve and
// the built-in tools both use it, so they agree on containment.
func PathScope(env *Env, tool string) fscore.Scope {
	s := fscore.Scope{ReadOnly: readingTools[tool]}
	if env == nil {
		return s
	}
	s.Root, s.HomeDir, s.AdditionalDirs, s.AllowOutside = env.Root, env.HomeDir, env.AdditionalDirs, env.AllowOutside
	if env.StateDir != "" {
		// hew's saved tool results and the project's long-term memory: the
		// model reads them with read_file, it never writes them directly.
		s.ReadOnlyDirs = []string{filepath.Join(env.StateDir, "tool-results"), filepath.Join(env.StateDir, "memory")}
	}
	return s
}

// resolvePath is the containment-checked path resolution every file tool uses.
func resolvePath(env *Env, tool, path string) (string, error) {
	return fscore.Resolve(PathScope(env, tool), tool, path)
}

func realRoot(root string) (string, error) { return fscore.RealPath(root) }

func relTo(root, abs string) string { return fscore.Rel(root, abs) }
