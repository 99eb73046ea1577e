package checkpoint

import (
	"path/filepath"
	"time"

	"github.com/hew-dev/hew/internal/config"
)

// ForProject opens the checkpoint store of a project's sessions: o names
// the project, its state directory, git and git's environment; the
// settings s (nil: the defaults) turn checkpoints off or bound the store.
// It returns nil, and the session takes no checkpoints, when s turns them
// off, when o.Root is userHome or a file-system root (a snapshot would copy
// far more than a project), or when the store cannot be opened.
func ForProject(o Options, userHome string, s *config.Settings) *Store {
	if s != nil {
		if !s.Checkpoints.Enabled {
			return nil
		}
		o.MaxAge = time.Duration(s.Checkpoints.MaxAgeDays) * 24 * time.Hour
		o.MaxBytes = int64(s.Checkpoints.MaxSizeMB) << 20
	}
	if o.Root == userHome || filepath.Dir(o.Root) == o.Root {
		return nil
	}
	st, err := Open(o)
	if err != nil {
		return nil
	}
	return st
}
