package callenv

import (
	"sync"
	"time"
)

// ReadTracker remembers what the model has read, so a write or edit can be
// refused when the file changed since (or was never read).
type ReadTracker struct {
	mu    sync.Mutex
	reads map[string]ReadReceipt
}

// ReadReceipt is the state of a file when the model last read or wrote it.
type ReadReceipt struct {
	ModTime time.Time
	Size    int64
	SHA256  string
}

// NewReadTracker makes an empty tracker.
func NewReadTracker() *ReadTracker { return &ReadTracker{reads: map[string]ReadReceipt{}} }

// Record stores the receipt for an absolute path.
func (t *ReadTracker) Record(path string, r ReadReceipt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reads[path] = r
}

// Get returns the receipt for an absolute path.
func (t *ReadTracker) Get(path string) (ReadReceipt, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.reads[path]
	return r, ok
}

// Forget drops all receipts (after compaction the model no longer has the content).
func (t *ReadTracker) Forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.reads)
}
