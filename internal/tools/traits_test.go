package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hew-dev/hew/internal/fsutil"
)

// fileProbe is a file tool hew has never heard of.
type fileProbe struct{ ro bool }

func (fileProbe) Name() string                    { return "probe" }
func (fileProbe) Description() string             { return "probes" }
func (fileProbe) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (p fileProbe) ReadOnly(json.RawMessage) bool { return p.ro }
func (fileProbe) Run(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{}, nil
}

// Whether a file tool may read what hew saved for the model (tool results)
// follows its own ReadOnly, whatever its name: a new read-only tool may,
// a writing one may not.
func TestSavedResultsReadableByReadOnlyTools(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	saved := filepath.Join(state, "tool-results", "t1.txt")
	if err := os.MkdirAll(filepath.Dir(saved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := &Env{Root: root, StateDir: state}
	if _, err := resolvePath(env, fileProbe{ro: true}, saved); err != nil {
		t.Errorf("a read-only tool may not read a saved result: %v", err)
	}
	var oe *fsutil.OutsideError
	if _, err := resolvePath(env, fileProbe{ro: false}, saved); !errors.As(err, &oe) {
		t.Errorf("a writing tool reached a saved result: %v", err)
	}
	if _, err := resolvePath(env, WriteFile{writeFileSpec}, saved); !errors.As(err, &oe) {
		t.Errorf("write_file reached a saved result: %v", err)
	}
	if _, err := resolvePath(env, ReadFile{readFileSpec}, saved); err != nil {
		t.Errorf("read_file may not read a saved result: %v", err)
	}
}
