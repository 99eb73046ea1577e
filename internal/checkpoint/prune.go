package checkpoint

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Size is the store's size on disk in bytes.
func (s *Store) Size() (int64, error) {
	var n int64
	err := filepath.WalkDir(s.dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n, err
}

// maybePrune prunes at most once a day (a stamp file records the last run).
func (s *Store) maybePrune() {
	stamp := filepath.Join(s.dir, "last-prune")
	if fi, err := os.Stat(stamp); err == nil && s.opts.Now().Sub(fi.ModTime()) < 24*time.Hour {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		return
	}
	now := s.opts.Now()
	os.Chtimes(stamp, now, now)
	s.prune()
}

// Prune drops the checkpoints of sessions older than the age limit, then the
// oldest sessions until the store is under the size limit. It returns how
// many sessions were dropped.
func (s *Store) Prune() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prune()
}

func (s *Store) prune() (int, error) {
	sessions, err := s.Sessions()
	if err != nil {
		return 0, err
	}
	dropped := 0
	drop := func(id string) {
		os.Remove(s.logPath(id))
		if g, ok := s.be.(*gitBackend); ok {
			g.run("", nil, "update-ref", "-d", "refs/hew/"+safeName(id))
			os.Remove(g.index(id))
		}
		dropped++
	}
	cutoff := s.opts.Now().Add(-s.opts.MaxAge)
	kept := sessions[:0]
	for _, si := range sessions {
		if si.Modified.Before(cutoff) {
			drop(si.ID)
			continue
		}
		kept = append(kept, si)
	}
	sessions = kept
	gc := func() {
		switch be := s.be.(type) {
		case *gitBackend:
			// Objects written in the last hour may belong to a snapshot
			// another process is taking right now: leave them.
			be.run("", nil, "gc", "-q", "--prune=1.hour.ago")
		case *copyBackend:
			be.sweep(s.opts.Now().Add(-copyGrace))
		}
	}
	if dropped > 0 {
		gc()
	}
	for len(sessions) > 1 {
		size, err := s.Size()
		if err != nil || size <= s.opts.MaxBytes {
			break
		}
		drop(sessions[len(sessions)-1].ID) // the oldest; the newest is always kept
		sessions = sessions[:len(sessions)-1]
		gc()
	}
	return dropped, nil
}
