package memory

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/memory"
)

func TestAddListShowRemove(t *testing.T) {
	s := memory.Open(t.TempDir())
	var out, errb bytes.Buffer
	if code := Run(Options{Stdin: nil, Stdout: &out, Stderr: &errb, Store: s}, []string{"add", "--type", "feedback", "Always run go vet before committing"}); code != 0 {
		t.Fatalf("add: %d %s", code, errb.String())
	}
	if code := Run(Options{Stdin: strings.NewReader("The API lives in internal/api\n"), Stdout: &out, Stderr: &errb, Store: s}, []string{"add", "-"}); code != 0 {
		t.Fatalf("add stdin: %d %s", code, errb.String())
	}
	list, _ := s.List()
	if len(list) != 2 || list[0].Type != "feedback" || list[1].Type != "project" {
		t.Fatalf("list %+v", list)
	}
	m := list[1]
	if m.Source != "user via hew memory add" || m.Created.IsZero() || m.Updated.IsZero() || m.Description == "" {
		t.Fatalf("frontmatter not kept: %+v", m)
	}
	raw, _ := os.ReadFile(m.Path)
	for _, key := range []string{"name:", "description:", "type: project", "created:", "updated:", "source:"} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("memory file lacks %q:\n%s", key, raw)
		}
	}
	idx, err := os.ReadFile(s.IndexPath())
	if err != nil || !strings.Contains(string(idx), "## feedback") ||
		!strings.Contains(string(idx), "- [The API lives in internal/api](project/the-api-lives-in-internal-api.md) — The API lives in internal/api") {
		t.Fatalf("index: %v\n%s", err, idx)
	}
	out.Reset()
	if code := Run(Options{Stdin: nil, Stdout: &out, Stderr: &errb, Store: s}, []string{"show", "the-api-lives-in-internal-api"}); code != 0 || !strings.Contains(out.String(), "The API lives in internal/api") || !strings.Contains(out.String(), "source: user via hew memory add") {
		t.Fatalf("show: %d %q", code, out.String())
	}
	if code := Run(Options{Stdin: nil, Stdout: &out, Stderr: &errb, Store: s}, []string{"rm", "always-run-go-vet-before-committing"}); code != 0 {
		t.Fatalf("rm: %d %s", code, errb.String())
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Fatalf("after rm: %+v", list)
	}
	if idx, _ := os.ReadFile(s.IndexPath()); strings.Contains(string(idx), "go-vet") {
		t.Fatal("index still lists removed memory")
	}
	if code := Run(Options{Stdin: nil, Stdout: &out, Stderr: &errb, Store: s}, []string{"add", "--type", "bogus", "x"}); code != 2 || !strings.Contains(errb.String(), "unknown type") {
		t.Fatalf("bad type: %d %s", code, errb.String())
	}
	if code := Run(Options{Stdin: nil, Stdout: &out, Stderr: &errb, Store: s}, []string{"show", "nope"}); code != 1 {
		t.Fatalf("show missing: %d", code)
	}
	out.Reset()
	if code := Run(Options{Stdin: nil, Stdout: &out, Stderr: &errb, Store: s}, []string{"path"}); code != 0 || strings.TrimSpace(out.String()) != s.Dir {
		t.Fatalf("path: %q", out.String())
	}
}

func TestHelp(t *testing.T) {
	s := memory.Open(t.TempDir())
	for _, args := range [][]string{{"--help"}, {"list", "--help"}, {"add", "--help"}, {"show", "-h"}, {"rm", "--help"}} {
		var out, errb bytes.Buffer
		if code := Run(Options{Stdin: nil, Stdout: &out, Stderr: &errb, Store: s}, args); code != 0 || !strings.Contains(out.String(), "usage: hew memory") {
			t.Errorf("%v: %d %q %q", args, code, out.String(), errb.String())
		}
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatal("--help added a memory")
	}
}

// A memory that pushes others out of the full index says which, never
// silently.
func TestAddReportsWhatTheIndexLeftOut(t *testing.T) {
	s := &memory.Store{Dir: t.TempDir(), IndexLines: 12}
	for i := 0; i < 12; i++ {
		if _, err := s.Add(memory.Memory{Type: "reference", Name: fmt.Sprintf("ref %02d", i), Body: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := Run(Options{Stdout: &out, Stderr: &errb, Store: s}, []string{"add", "--type", "user", "one more"}); code != 0 {
		t.Fatalf("add: %d %s", code, errb.String())
	}
	// Which five are named depends on their stamps (recency ranks them,
	// and the adds may straddle a second); that five are, in the index's
	// link format, does not.
	e := errb.String()
	named := regexp.MustCompile(`(?m)^  - \[ref \d\d\]\(reference/ref-\d\d\.md\) — x$`).FindAllString(e, -1)
	if !strings.HasPrefix(e, "hew: the memory index is full") || !strings.Contains(e, "no longer indexed or recalled (their files stay):\n  - [") ||
		len(named) < 4 || strings.Count(e, "\n  - [") != 5 || !strings.Contains(e, "  … and 8 more\n") {
		t.Errorf("stderr:\n%s", errb.String())
	}
}
