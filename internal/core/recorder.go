package core

import (
	"sync"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/session"
)

// recorder is the session's agent.Recorder. A new session's file is created
// with its first record, so opening the REPL and leaving leaves no empty
// session behind; a resumed session appends to its file from the start.
type recorder struct {
	mu   sync.Mutex
	id   string
	dir  string
	meta session.Meta
	w    *session.Writer
	err  error
}

func newRecorder(dir string, meta session.Meta) *recorder {
	return &recorder{id: meta.ID, dir: dir, meta: meta}
}

func openedRecorder(dir string, w *session.Writer) *recorder {
	return &recorder{id: w.ID(), dir: dir, w: w}
}

func (r *recorder) writer() *session.Writer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil && r.err == nil {
		r.w, r.err = session.Create(r.dir, r.meta)
	}
	return r.w
}

// ID is the session id.
func (r *recorder) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.id
}

// switchTo makes w (a resumed session) the file records go to, closing the
// previous one.
func (r *recorder) switchTo(w *session.Writer) error {
	r.mu.Lock()
	old := r.w
	r.w, r.err, r.id = w, nil, w.ID()
	r.mu.Unlock()
	if old != nil {
		return old.Close()
	}
	return nil
}

// restart makes records go to a new session (meta), created with its first
// record, closing the previous file, which stays resumable.
func (r *recorder) restart(meta session.Meta) error {
	r.mu.Lock()
	old := r.w
	r.w, r.err, r.id, r.meta = nil, nil, meta.ID, meta
	r.mu.Unlock()
	if old != nil {
		return old.Close()
	}
	return nil
}

// Message records a message appended to the history.
func (r *recorder) Message(m llm.Message) {
	if w := r.writer(); w != nil {
		w.Message(m)
	}
}

// Record stores any other record.
func (r *recorder) Record(kind string, v any) {
	if w := r.writer(); w != nil {
		w.Record(kind, v)
	}
}

// Path is the session file ("" before the first record).
func (r *recorder) Path() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return ""
	}
	return r.w.Path()
}

// Err reports the first failure to create or write the file.
func (r *recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	if r.w != nil {
		return r.w.Err()
	}
	return nil
}

// Close closes the file, if one was opened.
func (r *recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return r.err
	}
	return r.w.Close()
}
