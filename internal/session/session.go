// Package session stores conversations as append-only JSONL files, one per
// session, under $HEW_HOME/projects/KEY/sessions. Records are written as they
// happen, each with a single write, so a process killed at any instant leaves
// a file that loads: a torn last line is skipped and dangling tool calls get
// "interrupted" results.
package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hew-dev/hew/internal/llm"
)

// Record kinds with a meaning to Load.
const (
	KindMeta    = "meta"    // first line: who, where, when
	KindMessage = "message" // one message appended to the history
	KindReset   = "reset"   // the history was replaced (compaction, /clear)
)

// Meta describes a session; it is the first record of its file.
type Meta struct {
	ID       string    `json:"id"`
	Cwd      string    `json:"cwd"`
	Model    string    `json:"model,omitempty"`
	Provider string    `json:"provider,omitempty"`
	Created  time.Time `json:"created"`
	Version  string    `json:"version,omitempty"`
	// Parent and Title are set on a sub-agent's transcript (a sidechain):
	// the session that started it and what it was for.
	Parent string `json:"parent,omitempty"`
	Title  string `json:"title,omitempty"`
}

// line is the envelope of every record.
type line struct {
	Type     string          `json:"type"`
	Time     time.Time       `json:"time"`
	Meta     *Meta           `json:"meta,omitempty"`
	Message  *llm.Message    `json:"message,omitempty"`
	Messages []llm.Message   `json:"messages,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
}

// ProjectKey is the first 16 hex digits of sha256 of the absolute working
// directory: the name of the project's state directory.
func ProjectKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])[:16]
}

// ProjectDir is $HEW_HOME/projects/KEY for root.
func ProjectDir(home, root string) string {
	return filepath.Join(home, "projects", ProjectKey(root))
}

// Dir is where root's sessions live.
func Dir(home, root string) string {
	return filepath.Join(ProjectDir(home, root), "sessions")
}

// NewID makes a time-sortable session id.
func NewID() string { return strings.ToLower(ulid.Make().String()) }

// Writer appends records to one session file. It implements agent.Recorder.
// Errors are kept (Err) rather than returned, so a full disk never takes the
// loop down; the front-end reports them.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	id   string
	err  error
	now  func() time.Time
}

// Create starts a new session file in dir with meta as its first record.
func Create(dir string, meta Meta) (*Writer, error) {
	if meta.ID == "" {
		meta.ID = NewID()
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session: create directory: %w", err)
	}
	path := filepath.Join(dir, meta.ID+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: create %s: %w", path, err)
	}
	w := &Writer{f: f, path: path, id: meta.ID, now: func() time.Time { return time.Now().UTC() }}
	w.write(line{Type: KindMeta, Meta: &meta})
	return w, w.Err()
}

// Append reopens an existing session file for appending (resume).
func Append(path string) (*Writer, error) {
	// A torn last line (killed mid-write) would glue onto the next record:
	// terminate it first so every later record is whole.
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			f.Close()
			return nil, fmt.Errorf("session: repair %s: %w", path, err)
		}
	}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	return &Writer{f: f, path: path, id: id, now: func() time.Time { return time.Now().UTC() }}, nil
}

// ID is the session id.
func (w *Writer) ID() string { return w.id }

// Path is the session file.
func (w *Writer) Path() string { return w.path }

// Err is the first write error met, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Message records a message appended to the history.
func (w *Writer) Message(m llm.Message) { w.write(line{Type: KindMessage, Message: &m}) }

// Reset records that the history was replaced by msgs (compaction, /clear).
func (w *Writer) Reset(msgs []llm.Message) {
	if msgs == nil {
		msgs = []llm.Message{}
	}
	w.write(line{Type: KindReset, Messages: msgs})
}

// Record stores any other record under kind. The "reset" kind with a
// []llm.Message value replaces the history on load.
func (w *Writer) Record(kind string, v any) {
	if kind == KindReset {
		if msgs, ok := v.([]llm.Message); ok {
			w.Reset(msgs)
			return
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		w.setErr(fmt.Errorf("session: encode %s record: %w", kind, err))
		return
	}
	w.write(line{Type: kind, Data: data})
}

// Close flushes and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	err := w.f.Close()
	w.f = nil
	if w.err == nil && err != nil {
		w.err = fmt.Errorf("session: close: %w", err)
	}
	return w.err
}

func (w *Writer) write(l line) {
	l.Time = w.now()
	data, err := json.Marshal(l)
	if err != nil {
		w.setErr(fmt.Errorf("session: encode record: %w", err))
		return
	}
	data = append(data, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		if w.err == nil {
			w.err = errors.New("session: write after close")
		}
		return
	}
	// One write per record: with O_APPEND a kill leaves at most one torn line.
	if _, err := w.f.Write(data); err != nil && w.err == nil {
		w.err = fmt.Errorf("session: write %s: %w", w.path, err)
	}
}

func (w *Writer) setErr(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}
