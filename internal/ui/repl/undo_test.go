package repl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/checkpoint"
)

// /undo shows what it will change and asks; "n" leaves the file, "y"
// restores it.
func TestUndoAsksThenRestores(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "f.txt")
	os.WriteFile(file, []byte("before\n"), 0o644)
	store, err := checkpoint.Open(checkpoint.Options{Root: root, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tr := store.Tracker("fake")
	tr.TurnStart("change f")
	ctx := context.Background()
	tr.BeforeChange(ctx, "c1", "write_file", []byte(`{"file_path":"f.txt"}`))
	os.WriteFile(file, []byte("after\n"), 0o644)
	tr.AfterChange(ctx, "c1", "write_file", []byte(`{"file_path":"f.txt"}`))
	tr.TurnEnd(ctx)

	rg := newRig(strings.NewReader("/undo\nn\n/undo\ny\n/undo\n/exit\n"))
	rg.ag.ckpt = store
	Run(context.Background(), rg.opts)
	out := rg.out.String()
	for _, want := range []string{"Undo of turn 1:", "restore  f.txt (+1 -1)", "Nothing was changed.", "Restored 1 file(s).", "Nothing to undo"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if data, _ := os.ReadFile(file); string(data) != "before\n" {
		t.Fatalf("f.txt = %q after /undo y", data)
	}
}
