package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLazyFileCreatesOnFirstWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "mcp.log")
	l := NewLazyFile(path)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file exists before any write: %v", err)
	}
	for _, s := range []string{"one\n", "two\n"} {
		if n, err := l.Write([]byte(s)); err != nil || n != len(s) {
			t.Fatalf("write: %d, %v", n, err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("file %q, %v", b, err)
	}
	// A path that cannot be created swallows writes instead of failing them.
	blocked := NewLazyFile(filepath.Join(path, "under-a-file.log"))
	if n, err := blocked.Write([]byte("x")); err != nil || n != 1 {
		t.Fatalf("blocked write: %d, %v", n, err)
	}
}
