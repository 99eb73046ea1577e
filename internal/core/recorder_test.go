package core

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/session"
)

func TestRecorderCreatesFileOnFirstRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	r := newRecorder(dir, session.Meta{ID: session.NewID(), Cwd: "/x"})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a session directory exists before any record: %v", err)
	}
	r.Message(llm.UserText("hello"))
	if r.Path() == "" || r.Err() != nil {
		t.Fatalf("path %q err %v", r.Path(), r.Err())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	loaded, err := session.Load(r.Path())
	if err != nil || len(loaded.Messages) != 1 || loaded.Meta.ID != r.ID() {
		t.Fatalf("loaded %+v, %v", loaded, err)
	}

	// Resuming switches the file records go to.
	r2 := newRecorder(dir, session.Meta{ID: session.NewID()})
	r2.Message(llm.UserText("first"))
	w, err := session.Append(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.switchTo(w); err != nil {
		t.Fatal(err)
	}
	r2.Message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "again"}}})
	r2.Close()
	loaded, _ = session.Load(r.Path())
	if r2.ID() != r.ID() || len(loaded.Messages) != 2 {
		t.Errorf("after switch: id %s, %d messages", r2.ID(), len(loaded.Messages))
	}
}
