package subagent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	root := project(t)
	testenv.GitRepo(t, root)
	return root
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testenv.Git(t, dir, args...)
}

func TestWorktreeStaleCleanupAndNoChanges(t *testing.T) {
	root := gitRepo(t)
	var w worktrees
	old, err := w.create(context.Background(), root, "old")
	if err != nil {
		t.Fatal(err)
	}
	w.active = map[string]bool{} // as if the hew that made it were gone
	later := time.Now().Add(2 * staleAfter)
	w.now = func() time.Time { return later }
	fresh, err := w.create(context.Background(), root, "new")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old.dir); err == nil {
		t.Error("the stale worktree is still there")
	}
	msg, err := w.finish(fresh, "nothing")
	if err != nil || !strings.Contains(msg, "changed no files") {
		t.Fatalf("%q %v", msg, err)
	}
	if br := gitOut(t, root, "branch", "--list", fresh.branch); br != "" {
		t.Errorf("branch of an unchanged worktree kept: %q", br)
	}
	if _, err := os.Stat(fresh.dir); err == nil {
		t.Error("worktree not removed")
	}
}

func project(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "greeting.txt"), []byte("hello from the greeting file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}
