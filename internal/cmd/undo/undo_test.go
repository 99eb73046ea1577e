package undo

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/checkpoint"
)

// project is a directory with a copy store (no git) and one turn that
// changed a.txt from "before" to "after".
func project(t *testing.T) (string, *checkpoint.Store) {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, "a.txt")
	if err := os.WriteFile(path, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := checkpoint.Open(checkpoint.Options{Root: root, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Tracker("01jsession")
	ctx, in := context.Background(), json.RawMessage(`{"file_path":"a.txt"}`)
	tr.TurnStart("rewrite a.txt")
	if err := tr.BeforeChange(ctx, "c1", "write_file", in); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("after\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.AfterChange(ctx, "c1", "write_file", in); err != nil {
		t.Fatal(err)
	}
	if err := tr.TurnEnd(ctx); err != nil {
		t.Fatal(err)
	}
	return root, s
}

func run(f func(Options, []string) int, s *checkpoint.Store, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := f(Options{Store: s, Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// checkpoints lists the turn; a dry run changes nothing; undo restores the
// file and marks the turn; a second undo finds nothing (exit 1).
func TestCheckpointsAndUndo(t *testing.T) {
	root, s := project(t)
	code, out, errs := run(Checkpoints, s)
	if code != 0 || !strings.Contains(out, "session 01jsession (") || !strings.Contains(out, "turn 1  ") ||
		!strings.Contains(out, "1 file(s)  rewrite a.txt") || !strings.Contains(out, "a.txt") {
		t.Fatalf("checkpoints: %d %q\n%s", code, errs, out)
	}
	code, out, _ = run(Checkpoints, s, "list", "--json")
	var doc struct {
		Session string
		Turns   []struct {
			Turn   int
			Undone bool
			Files  []map[string]string
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Session != "01jsession" || len(doc.Turns) != 1 ||
		len(doc.Turns[0].Files) != 1 || doc.Turns[0].Files[0]["path"] != "a.txt" {
		t.Fatalf("checkpoints --json: %d\n%s", code, out)
	}

	code, out, _ = run(Undo, s, "--dry-run")
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); code != 0 || !strings.Contains(out, "(dry run: nothing was changed)") || string(data) != "after\n" {
		t.Fatalf("dry run: %d %q, file %q", code, out, data)
	}
	code, out, errs = run(Undo, s)
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); code != 0 || !strings.Contains(out, "undone: 1 file(s) restored") || string(data) != "before\n" {
		t.Fatalf("undo: %d %q %q, file %q", code, out, errs, data)
	}
	if _, out, _ = run(Checkpoints, s); !strings.Contains(out, "[undone]") {
		t.Errorf("the turn is not marked undone:\n%s", out)
	}
	if code, _, _ = run(Undo, s); code != 1 {
		t.Errorf("a second undo: exit %d, want 1", code)
	}
}

func TestUsageAndNothingToDo(t *testing.T) {
	_, s := project(t)
	for _, tc := range []struct {
		f    func(Options, []string) int
		args []string
		code int
		want string
	}{
		{Undo, []string{"--turns", "0"}, 2, "--turns must be at least 1"},
		{Undo, []string{"extra"}, 2, `unexpected argument "extra"`},
		{Undo, []string{"--session", "nosuch"}, 1, "no checkpoints for session nosuch"},
		{Checkpoints, []string{"show"}, 2, "unknown arguments"},
		{Checkpoints, []string{"--bogus"}, 2, "unknown flag"},
	} {
		if code, _, errs := run(tc.f, s, tc.args...); code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: %d %q, want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	if code, out, _ := run(Undo, s, "--help"); code != 0 || !strings.HasPrefix(out, "usage: hew undo") {
		t.Errorf("help: %d %q", code, out)
	}
	empty, err := checkpoint.Open(checkpoint.Options{Root: t.TempDir(), StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(Checkpoints, empty); code != 0 || !strings.Contains(out, "no checkpoints") {
		t.Errorf("empty checkpoints: %d %q", code, out)
	}
	if code, _, errs := run(Undo, empty); code != 1 || !strings.Contains(errs, "nothing to undo") {
		t.Errorf("empty undo: %d %q", code, errs)
	}
}
