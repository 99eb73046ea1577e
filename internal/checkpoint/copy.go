package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/fsutil"
)

// copyBackend is the store without git: before a file tool changes a file it
// keeps a copy of that file (content-addressed under blobs/), and a snapshot
// is a manifest of the tracked paths. What a shell command changes is not
// seen; the turn says so.
type copyBackend struct {
	s *Store

	mu      sync.Mutex
	tracked map[string]map[string]bool // session → paths seen so far
}

func (c *copyBackend) kind() string { return "copy" }

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (c *copyBackend) blobPath(hash string) string {
	return filepath.Join(c.s.dir, "blobs", hash[:2], hash)
}

func (c *copyBackend) manifestPath(id string) string {
	return filepath.Join(c.s.dir, "manifests", id+".json")
}

// snapshot records the current versions of every path tracked so far in
// this session plus paths.
func (c *copyBackend) snapshot(session string, paths []string) (string, error) {
	c.mu.Lock()
	if c.tracked == nil {
		c.tracked = map[string]map[string]bool{}
	}
	set := c.tracked[session]
	if set == nil {
		set = map[string]bool{}
		c.tracked[session] = set
	}
	for _, p := range paths {
		set[p] = true
	}
	all := make([]string, 0, len(set))
	for p := range set {
		all = append(all, p)
	}
	c.mu.Unlock()
	m := map[string]Version{}
	for _, p := range all {
		v, err := c.store(p)
		if err != nil {
			return "", err
		}
		m[p] = v
	}
	return c.writeManifest(m)
}

// extend adds paths, as they are now, to the manifest snap (a path it
// already has keeps its recorded version).
func (c *copyBackend) extend(snap string, paths []string) (string, error) {
	m, err := c.manifest(snap)
	if err != nil {
		return "", err
	}
	grown := false
	for _, p := range paths {
		if _, ok := m[p]; ok {
			continue
		}
		v, err := c.store(p)
		if err != nil {
			return "", err
		}
		m[p], grown = v, true
	}
	if !grown {
		return snap, nil
	}
	return c.writeManifest(m)
}

// store copies the current content of rel into blobs/ and returns its version.
func (c *copyBackend) store(rel string) (Version, error) {
	v, data, err := c.s.readVersion(rel, sha256Hex)
	if err != nil || !v.Exists || v.Hash == "dir" {
		return v, err
	}
	p := c.blobPath(v.Hash)
	if _, err := os.Stat(p); err == nil {
		// Freshen it: a sweep leaves files touched within copyGrace alone,
		// and this one is about to be named by a new manifest.
		now := c.s.opts.Now()
		os.Chtimes(p, now, now)
		return v, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return v, fmt.Errorf("checkpoint: %w", err)
	}
	return v, writeAtomic(p, data)
}

func (c *copyBackend) writeManifest(m map[string]Version) (string, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type entry struct {
		Path string  `json:"path"`
		V    Version `json:"v"`
	}
	list := make([]entry, 0, len(keys))
	for _, k := range keys {
		list = append(list, entry{k, m[k]})
	}
	data, err := json.Marshal(list)
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	id := sha256Hex(data)[:40]
	p := c.manifestPath(id)
	if _, err := os.Stat(p); err == nil {
		now := c.s.opts.Now()
		os.Chtimes(p, now, now) // freshen, as store does for blobs
		return id, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	return id, writeAtomic(p, data)
}

func (c *copyBackend) manifest(id string) (map[string]Version, error) {
	m := map[string]Version{}
	if id == "" {
		return m, nil
	}
	data, err := os.ReadFile(c.manifestPath(id))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: snapshot %s: %w", id, err)
	}
	var list []struct {
		Path string  `json:"path"`
		V    Version `json:"v"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("checkpoint: snapshot %s: %w", id, err)
	}
	for _, e := range list {
		m[e.Path] = e.V
	}
	return m, nil
}

func (c *copyBackend) diff(from, to string) ([]Change, error) {
	a, err := c.manifest(from)
	if err != nil {
		return nil, err
	}
	b, err := c.manifest(to)
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	for p := range a {
		paths[p] = true
	}
	for p := range b {
		paths[p] = true
	}
	var out []Change
	for p := range paths {
		before, okA := a[p]
		after, okB := b[p]
		if !okA || !okB || before.same(after) {
			// A path known to one side only was first seen later; its
			// earlier state is unknown, so it is not a change of this span.
			continue
		}
		out = append(out, Change{Path: p, Before: before, After: after})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (c *copyBackend) blob(v Version) ([]byte, error) {
	if !v.Exists {
		return nil, errors.New("checkpoint: no content for an absent file")
	}
	data, err := os.ReadFile(c.blobPath(v.Hash))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: the copy of this file was pruned")
	}
	return data, err
}

func (c *copyBackend) current(rel string) (Version, error) {
	v, _, err := c.s.readVersion(rel, sha256Hex)
	return v, err
}

// writeAtomic writes through a temporary file and a rename.
func writeAtomic(path string, data []byte) error {
	if err := fsutil.WriteFileAtomic(path, data, 0o644); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// copyGrace is how long a manifest or blob no session names yet is kept: a
// turn in progress (in this process or another) has written its snapshot
// but not yet the turn record that names it.
const copyGrace = 24 * time.Hour

// sweep deletes the manifests and blobs that no remaining session's turns
// name (their sessions were pruned), except files modified after keepAfter.
// It is the copy store's counterpart of git's gc.
func (c *copyBackend) sweep(keepAfter time.Time) {
	sessions, err := c.s.Sessions()
	if err != nil {
		return
	}
	manifests, blobs := map[string]bool{}, map[string]bool{}
	for _, si := range sessions {
		turns, err := c.s.Turns(si.ID)
		if err != nil {
			return // unsure what is referenced: delete nothing
		}
		for _, t := range turns {
			manifests[t.Before], manifests[t.After] = true, true
		}
	}
	for id := range manifests {
		m, err := c.manifest(id)
		if err != nil {
			continue // already gone, or unreadable: nothing it names can be restored anyway
		}
		for _, v := range m {
			if v.Exists {
				blobs[v.Hash] = true
			}
		}
	}
	old := func(d fs.DirEntry) bool {
		fi, err := d.Info()
		return err == nil && d.Type().IsRegular() && fi.ModTime().Before(keepAfter)
	}
	if entries, err := os.ReadDir(filepath.Join(c.s.dir, "manifests")); err == nil {
		for _, e := range entries {
			id := strings.TrimSuffix(e.Name(), ".json")
			if !manifests[id] && old(e) {
				os.Remove(filepath.Join(c.s.dir, "manifests", e.Name()))
			}
		}
	}
	root := filepath.Join(c.s.dir, "blobs")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if !blobs[d.Name()] && old(d) {
			os.Remove(path)
		}
		return nil
	})
	if dirs, err := os.ReadDir(root); err == nil {
		for _, d := range dirs {
			os.Remove(filepath.Join(root, d.Name())) // only succeeds when empty
		}
	}
}
