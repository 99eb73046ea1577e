package memory

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

func TestAddListShowRemove(t *testing.T) {
	s := Open(t.TempDir())
	var out, errb bytes.Buffer
	if code := Command([]string{"add", "--type", "feedback", "Always run go vet before committing"}, nil, &out, &errb, s); code != 0 {
		t.Fatalf("add: %d %s", code, errb.String())
	}
	if code := Command([]string{"add", "-"}, strings.NewReader("The API lives in internal/api\n"), &out, &errb, s); code != 0 {
		t.Fatalf("add stdin: %d %s", code, errb.String())
	}
	list, _ := s.List()
	if len(list) != 2 || list[0].Type != "feedback" || list[1].Type != "project" {
		t.Fatalf("list %+v", list)
	}
	idx, err := os.ReadFile(s.IndexPath())
	if err != nil || !strings.Contains(string(idx), "## feedback") || !strings.Contains(string(idx), "(project/the-api-lives-in-internal-api.md)") {
		t.Fatalf("index: %v\n%s", err, idx)
	}
	out.Reset()
	if code := Command([]string{"show", "the-api-lives-in-internal-api"}, nil, &out, &errb, s); code != 0 || !strings.Contains(out.String(), "The API lives in internal/api") {
		t.Fatalf("show: %d %q", code, out.String())
	}
	if !strings.Contains(s.Context(), "Always run go vet") {
		t.Fatal("context lacks memory")
	}
	if code := Command([]string{"rm", "always-run-go-vet-before-committing"}, nil, &out, &errb, s); code != 0 {
		t.Fatalf("rm: %d %s", code, errb.String())
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Fatalf("after rm: %+v", list)
	}
	if idx, _ := os.ReadFile(s.IndexPath()); strings.Contains(string(idx), "go-vet") {
		t.Fatal("index still lists removed memory")
	}
	if code := Command([]string{"add", "--type", "bogus", "x"}, nil, &out, &errb, s); code != 2 || !strings.Contains(errb.String(), "unknown type") {
		t.Fatalf("bad type: %d %s", code, errb.String())
	}
	if code := Command([]string{"show", "nope"}, nil, &out, &errb, s); code != 1 {
		t.Fatalf("show missing: %d", code)
	}
}

// Two processes adding at once: every memory survives and the index lists all.
func TestConcurrentAdds(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := Open(dir).Add(Memory{Body: fmt.Sprintf("fact number %d", i)}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	s := Open(dir)
	list, _ := s.List()
	if len(list) != 20 {
		t.Fatalf("%d memories", len(list))
	}
	// A final reindex (as any later write does) lists all of them.
	s.Add(Memory{Body: "last"})
	idx, _ := os.ReadFile(s.IndexPath())
	if n := strings.Count(string(idx), "- ["); n != 21 {
		t.Fatalf("index lists %d", n)
	}
}

func TestBudget(t *testing.T) {
	s := Open(t.TempDir())
	big := strings.Repeat("word ", 5000)
	for i := 0; i < 5; i++ {
		s.Add(Memory{Name: fmt.Sprintf("big%d", i), Body: big})
	}
	c := s.Context()
	if len(c) > Budget+200 || !strings.Contains(c, "budget") {
		t.Fatalf("context %d bytes", len(c))
	}
}

func TestCommandHelp(t *testing.T) {
	s := Open(t.TempDir())
	for _, args := range [][]string{{"--help"}, {"list", "--help"}, {"add", "--help"}, {"show", "-h"}, {"rm", "--help"}} {
		var out, errb bytes.Buffer
		if code := Command(args, nil, &out, &errb, s); code != 0 || !strings.Contains(out.String(), "usage: hew memory") {
			t.Errorf("%v: %d %q %q", args, code, out.String(), errb.String())
		}
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatal("--help added a memory")
	}
}
