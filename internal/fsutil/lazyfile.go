package fsutil

import (
	"os"
	"path/filepath"
	"sync"
)

// LazyFile is an append-only log file created (with its directory) on the
// first write, so a log nobody writes to leaves nothing behind. MCP servers'
// stderr goes to one, so they never scribble over the terminal. A file that
// cannot be created swallows the writes: a broken log must not break its
// writer.
type LazyFile struct {
	mu   sync.Mutex
	path string
	f    *os.File
	err  error
}

// NewLazyFile returns a LazyFile for path; nothing is created yet.
func NewLazyFile(path string) *LazyFile { return &LazyFile{path: path} }

// Write appends p, creating the file first if needed.
func (l *LazyFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		if l.err = os.MkdirAll(filepath.Dir(l.path), 0o700); l.err == nil {
			l.f, l.err = os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		}
	}
	if l.err != nil {
		return len(p), nil
	}
	return l.f.Write(p)
}

// Close closes the file if it was created.
func (l *LazyFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
