// Package checkpoint keeps a per-turn record of what the agent changed in the
// working tree, whatever tool made the change, so a turn can be taken back
// (/undo, /rewind, hew undo). Snapshots live in a shadow store under the
// project's state directory — a separate git directory over the project's
// work tree when git is installed, copies of the files the file tools touch
// when it is not — and never in the project's own .git: the user's branches,
// index and stash are not touched.
package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options configure a Store. Everything comes in as values: the store reads
// no process globals.
type Options struct {
	// Root is the absolute, symlink-resolved project root.
	Root string
	// StateDir is the per-project state directory ($HEW_HOME/projects/KEY);
	// the store lives in StateDir/checkpoints.
	StateDir string
	// Git is the git binary; "" uses the copy store (file tools only).
	Git string
	// Env is the environment git runs with (KEY=VALUE); hew's own GIT_*
	// variables are replaced, so a hook environment cannot redirect the store.
	Env []string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// MaxAge and MaxBytes bound the store (Prune); zero takes the defaults.
	MaxAge   time.Duration
	MaxBytes int64
}

// Defaults for pruning.
const (
	DefaultMaxAge   = 30 * 24 * time.Hour
	DefaultMaxBytes = 1 << 30
)

// Store is the shadow store of one project.
type Store struct {
	opts Options
	dir  string
	be   backend

	mu sync.Mutex // serialises snapshots within this process
}

// Open prepares the store (creating it lazily on the first snapshot).
func Open(o Options) (*Store, error) {
	if o.Root == "" || o.StateDir == "" {
		return nil, errors.New("checkpoint: root and state directory are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	s := &Store{opts: o, dir: filepath.Join(o.StateDir, "checkpoints")}
	if o.Git != "" {
		s.be = &gitBackend{s: s}
	} else {
		s.be = &copyBackend{s: s}
	}
	return s, nil
}

// Dir is where the store keeps its files.
func (s *Store) Dir() string { return s.dir }

// Kind names the backend: "git" (every change, shell included) or "copy"
// (changes made by the file tools only).
func (s *Store) Kind() string { return s.be.kind() }

// Version is one state of one path: absent, or content with a mode.
type Version struct {
	Exists bool   `json:"exists"`
	Hash   string `json:"hash,omitempty"` // the backend's content hash
	Mode   uint32 `json:"mode,omitempty"` // git-style: 0100644, 0100755, 0120000
}

func (v Version) same(o Version) bool {
	if !v.Exists || !o.Exists {
		return v.Exists == o.Exists
	}
	return v.Hash == o.Hash && v.Mode == o.Mode
}

// Change is what one turn did to one path.
type Change struct {
	Path   string  `json:"path"` // slash-separated, relative to the root
	Before Version `json:"before"`
	After  Version `json:"after"`
	// Calls are the tool calls (ids) after which the path had changed.
	Calls []string `json:"calls,omitempty"`
}

// Kind is created, deleted or modified.
func (c Change) Kind() string {
	switch {
	case !c.Before.Exists:
		return "created"
	case !c.After.Exists:
		return "deleted"
	}
	return "modified"
}

// CallChange links one tool call to the checkpoint it belongs to.
type CallChange struct {
	ID    string   `json:"id"`
	Tool  string   `json:"tool"`
	Files []string `json:"files,omitempty"`
}

// Turn is the checkpoint of one turn that changed something.
type Turn struct {
	Session string       `json:"session"`
	Seq     int          `json:"seq"` // 1, 2, … within the session's changing turns
	Prompt  string       `json:"prompt"`
	Start   time.Time    `json:"start"`
	End     time.Time    `json:"end"`
	Before  string       `json:"before"` // snapshot ids (git trees)
	After   string       `json:"after"`
	Changes []Change     `json:"changes"`
	Calls   []CallChange `json:"calls,omitempty"`
	// Untracked names what the store could not follow (shell changes
	// without git).
	Untracked string `json:"untracked,omitempty"`
	// Undone is set once the turn was taken back.
	Undone bool `json:"undone,omitempty"`
}

// ID is the checkpoint's name as receipts and listings show it.
func (t *Turn) ID() string { return fmt.Sprintf("%s#%d", shortID(t.Session), t.Seq) }

func shortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// backend is how snapshots are taken and read.
type backend interface {
	kind() string
	// snapshot records the current state and returns its id. paths are the
	// files the coming call names (the copy store tracks only those).
	snapshot(session string, paths []string) (string, error)
	// extend adds paths, as they are now, to snapshot snap where the
	// backend tracks only named paths (git snapshots hold every path).
	extend(snap string, paths []string) (string, error)
	// diff lists what differs between two snapshots.
	diff(from, to string) ([]Change, error)
	// blob returns the content of a version.
	blob(v Version) ([]byte, error)
	// current is the version of path on disk now.
	current(rel string) (Version, error)
}

// abs maps a store path onto the work tree, refusing anything that would
// leave it: the store never touches files outside the project.
func (s *Store) abs(rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, 0) || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("checkpoint: refusing path %q", rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("checkpoint: refusing path %q outside the project", rel)
	}
	first := strings.SplitN(filepath.ToSlash(clean), "/", 2)[0]
	if strings.EqualFold(first, ".git") {
		return "", fmt.Errorf("checkpoint: refusing path %q inside .git", rel)
	}
	p := filepath.Join(s.opts.Root, clean)
	// A symlinked parent could lead outside: resolve what exists of it.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		root, _ := filepath.EvalSymlinks(s.opts.Root)
		if root == "" {
			root = s.opts.Root
		}
		if dir != root && !strings.HasPrefix(dir, root+string(filepath.Separator)) {
			return "", fmt.Errorf("checkpoint: refusing path %q: its directory leads outside the project", rel)
		}
	}
	return p, nil
}

// readVersion reads the file at rel as the backend would store it.
func (s *Store) readVersion(rel string, hash func([]byte) string) (Version, []byte, error) {
	p, err := s.abs(rel)
	if err != nil {
		return Version{}, nil, err
	}
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Version{}, nil, nil
	}
	if err != nil {
		return Version{}, nil, err
	}
	var data []byte
	mode := uint32(0o100644)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return Version{}, nil, err
		}
		data, mode = []byte(filepath.ToSlash(target)), 0o120000
	case fi.Mode().IsRegular():
		if data, err = os.ReadFile(p); err != nil {
			return Version{}, nil, err
		}
		if fi.Mode()&0o111 != 0 {
			mode = 0o100755
		}
	default:
		// A directory (or device) where a file was: it counts as present
		// but unlike any stored content, so undo refuses to overwrite it.
		return Version{Exists: true, Hash: "dir", Mode: 0o040000}, nil, nil
	}
	return Version{Exists: true, Hash: hash(data), Mode: mode}, data, nil
}
