package core

import (
	"os"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/memory"
)

// /memory lists, shows, opens in the editor (and reindexes after) and forgets.
func TestSlash(t *testing.T) {
	s := memory.Open(t.TempDir())
	if out, _ := memorySlash(s, "", nil); !strings.Contains(out, "No memories") {
		t.Fatalf("empty list: %q", out)
	}
	s.Add(memory.Memory{Name: "build", Description: "how to build", Body: "make all"})
	out, err := memorySlash(s, "list", nil)
	if err != nil || !strings.Contains(out, "build") || !strings.Contains(out, "how to build") {
		t.Fatalf("list: %q %v", out, err)
	}
	if out, _ := memorySlash(s, "show build", nil); !strings.Contains(out, "make all") {
		t.Fatalf("show: %q", out)
	}
	var opened string
	edit := func(path string) error {
		opened = path
		return os.WriteFile(path, []byte("---\nname: build\ndescription: how to build it now\ntype: project\n---\nmake dist\n"), 0o600)
	}
	if out, err := memorySlash(s, "open build", edit); err != nil || !strings.Contains(out, "index is up to date") {
		t.Fatalf("open: %q %v", out, err)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if !strings.HasSuffix(opened, "project/build.md") || !strings.Contains(string(idx), "how to build it now") {
		t.Fatalf("edit not reindexed (%s):\n%s", opened, idx)
	}
	if _, err := memorySlash(s, "open", edit); err != nil || !strings.HasSuffix(opened, "MEMORY.md") {
		t.Fatalf("open without a name should open the index: %s %v", opened, err)
	}
	if out, err := memorySlash(s, "forget build", nil); err != nil || !strings.Contains(out, "Forgot") {
		t.Fatalf("forget: %q %v", out, err)
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatal("not forgotten")
	}
	if _, err := memorySlash(s, "bogus", nil); err == nil || !strings.Contains(err.Error(), "/memory forget") {
		t.Fatalf("unknown: %v", err)
	}
}
