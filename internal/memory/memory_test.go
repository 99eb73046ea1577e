package memory

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain doubles as a writer process for TestTwoProcessesLoseNothing.
func TestMain(m *testing.M) {
	if dir := os.Getenv("HEW_MEMORY_TEST_WRITER"); dir != "" {
		who := os.Getenv("HEW_MEMORY_TEST_WHO")
		for i := 0; i < 25; i++ {
			if _, err := Open(dir).Add(Memory{Name: fmt.Sprintf("%s fact %d", who, i), Body: fmt.Sprintf("fact %d from %s", i, who)}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Replacing a memory keeps its creation date and moves its update date.
func TestReplaceKeepsCreated(t *testing.T) {
	now := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
	if _, err := s.Add(Memory{Name: "style", Body: "tabs"}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(48 * time.Hour)
	res, err := s.Add(Memory{Name: "style", Body: "spaces"})
	if err != nil || !res.Replaced {
		t.Fatalf("replace: %+v %v", res, err)
	}
	m, _ := s.Get("style")
	if m.Body != "spaces" || !m.Created.Equal(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)) || !m.Updated.Equal(now) {
		t.Fatalf("after replace: %+v", m)
	}
}

// Chinese names make readable files and index lines.
func TestChineseNames(t *testing.T) {
	s := Open(t.TempDir())
	res, err := s.Add(Memory{Name: "部署 注意事项", Type: "project", Body: "CI 部署前先跑 make check"})
	if err != nil || res.Memory.File() != "project/部署-注意事项.md" {
		t.Fatalf("%+v %v", res.Memory.File(), err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "project", "部署-注意事项.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("部署 注意事项"); err != nil {
		t.Fatal(err)
	}
}

// Secrets are refused with a reason, and nothing is written.
func TestSecretsRefused(t *testing.T) {
	s := Open(t.TempDir())
	for _, text := range []string{
		"the key is sk-" + "ant-api03-" + strings.Repeat("Ab3", 10),
		"AWS AKIAIOSFODNN7EXAMPLE for the bucket",
		"use ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the API",
		"db password: hunter2hunter2",
		"connect to postgres://admin:s3cretpass@db.internal/app",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
		"数据库密码是 Xy7!kk2q",
	} {
		if _, err := s.Add(Memory{Body: text}); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%q: %v", text, err)
		}
	}
	for _, ok := range []string{"the token is read from $GITHUB_TOKEN", "set token = os.Getenv(\"TOKEN\") in main.go", "password prompts hang, pass --batch"} {
		if _, err := s.Add(Memory{Body: ok}); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	list, _ := s.List()
	if len(list) != 3 {
		t.Fatalf("%d memories written", len(list))
	}
}

// Goroutines writing at once lose nothing.
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
	idx, _ := os.ReadFile(Open(dir).IndexPath())
	if n := strings.Count(string(idx), "\n- ["); n != 20 {
		t.Fatalf("index lists %d of 20:\n%s", n, idx)
	}
}

// Two hew processes writing at once lose nothing: every file is there and
// the index, rewritten under the lock, lists all of them.
func TestTwoProcessesLoseNothing(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for _, who := range []string{"alpha", "beta"} {
		c := exec.Command(os.Args[0], "-test.run=^$")
		c.Env = append(os.Environ(), "HEW_MEMORY_TEST_WRITER="+dir, "HEW_MEMORY_TEST_WHO="+who)
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	s := Open(filepath.Dir(dir + "/x"))
	s.Dir = filepath.Join(dir, "memory")
	list, _ := s.List()
	idx, _ := os.ReadFile(s.IndexPath())
	if len(list) != 50 || strings.Count(string(idx), "\n- [") != 50 {
		t.Fatalf("%d files, index lists %d (want 50)", len(list), strings.Count(string(idx), "\n- ["))
	}
	if leftovers, _ := filepath.Glob(filepath.Join(s.Dir, "*", ".*tmp*")); len(leftovers) > 0 {
		t.Fatalf("temp files left: %v", leftovers)
	}
}

// The index stays within its limits; what it leaves out is the oldest
// low-value memories, reported, never silently dropped; the files stay.
func TestIndexPruning(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }, IndexLines: 40}
	var pruned []string
	for i := 0; i < 60; i++ {
		typ := "reference"
		if i%2 == 0 {
			typ = "user"
		}
		now = now.Add(time.Minute)
		res, err := s.Add(Memory{Type: typ, Name: fmt.Sprintf("item %03d", i), Body: "x"})
		if err != nil {
			t.Fatal(err)
		}
		pruned = append(pruned, res.Pruned...)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	lines := strings.Count(string(idx), "\n")
	if lines > 40 || len(idx) > MaxIndexBytes {
		t.Fatalf("index is %d lines / %d bytes", lines, len(idx))
	}
	if len(pruned) == 0 || !strings.Contains(string(idx), "not listed here") {
		t.Fatal("pruning was silent")
	}
	if !strings.Contains(string(idx), "](user/item-058.md)") || strings.Contains(string(idx), "](user/item-000.md)") || strings.Contains(string(idx), "](reference/") {
		t.Fatalf("pruned the wrong entries (want reference ones first, then the oldest user ones):\n%s", idx)
	}
	if list, _ := s.List(); len(list) != 60 {
		t.Fatalf("pruning deleted files: %d left", len(list))
	}
}

// A damaged memory file or index line never breaks the others.
func TestDamagedFilesTolerated(t *testing.T) {
	s := Open(t.TempDir())
	s.Add(Memory{Name: "good", Body: "fine"})
	os.WriteFile(filepath.Join(s.Dir, "project", "bad.md"), []byte("---\nname: [unclosed\n---\nbody survives"), 0o600)
	s.Add(Memory{Name: "other", Body: "also fine"})
	got, err := s.Indexed()
	if err != nil || len(got) != 3 {
		t.Fatalf("indexed %d: %v", len(got), err)
	}
	os.Remove(s.IndexPath())
	if got, _ := s.Indexed(); len(got) != 3 {
		t.Fatalf("without an index every file is a candidate, got %d", len(got))
	}
	os.WriteFile(s.IndexPath(), []byte("- [x](../../etc/passwd.md) — evil\n- [y](project/good.md) — ok\n"), 0o600)
	got, _ = s.Indexed()
	if len(got) != 1 || got[0].Name != "good" {
		t.Fatalf("index outside the store followed: %+v", got)
	}
}
