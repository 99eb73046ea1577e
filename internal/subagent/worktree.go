package subagent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// IsolationWorktree is the agent tool's opt-in isolation: the sub-agent
// works in its own git worktree on its own branch.
const IsolationWorktree = "worktree"

// worktreeDir is where isolated sub-agents' worktrees live, inside the
// project so the sandbox and the permission engine treat their files as
// the project's; a .gitignore there keeps them out of git and searches.
const worktreeDir = ".hew/worktrees"

// staleAfter is how old a worktree left behind by a hew that is gone must
// be before it is removed.
const staleAfter = time.Hour

// worktrees creates and removes isolated sub-agents' worktrees. Creation is
// serialised (git locks the repository's metadata); every sub-agent gets a
// branch of its own, never reused.
type worktrees struct {
	mu     sync.Mutex
	seq    atomic.Int64
	active map[string]bool
	now    func() time.Time
}

// worktree is one isolated sub-agent's checkout.
type worktree struct {
	repo, dir, branch, base string
	// sub is the project root's path inside the repository ("" at the top),
	// so the child starts in the same directory of its checkout.
	sub string
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.String(), nil
}

// create makes a fresh worktree of HEAD on a new branch for one sub-agent.
func (w *worktrees) create(ctx context.Context, root, label string) (*worktree, error) {
	top, err := git(ctx, root, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("worktree isolation needs a git repository: %w", err)
	}
	repo := strings.TrimSpace(top)
	if r, err := filepath.EvalSymlinks(repo); err == nil {
		repo = r
	}
	base, err := git(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("worktree isolation needs a commit to start from: %w", err)
	}
	sub, err := filepath.Rel(repo, root)
	if err != nil || strings.HasPrefix(sub, "..") {
		sub = ""
	}
	if sub == "." {
		sub = ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.active == nil {
		w.active = map[string]bool{}
	}
	parent := filepath.Join(root, worktreeDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	_ = os.WriteFile(filepath.Join(parent, ".gitignore"), []byte("*\n"), 0o644)
	w.cleanStale(ctx, repo, parent)
	id := fmt.Sprintf("agent-%s-%d-%d", strconv.FormatInt(w.clock().UnixNano(), 36), os.Getpid(), w.seq.Add(1))
	t := &worktree{repo: repo, dir: filepath.Join(parent, id), branch: "hew/" + id, base: strings.TrimSpace(base), sub: sub}
	if _, err := git(ctx, repo, "worktree", "add", "-b", t.branch, t.dir, t.base); err != nil {
		return nil, err
	}
	_ = os.WriteFile(t.dir+".pid", []byte(strconv.Itoa(os.Getpid())), 0o644)
	w.active[t.dir] = true
	return t, nil
}

func (w *worktrees) clock() time.Time {
	if w.now != nil {
		return w.now()
	}
	return time.Now()
}

// root is where the child works: the project root's place in the checkout.
func (t *worktree) root() string { return filepath.Join(t.dir, t.sub) }

// finish commits what the sub-agent changed to its branch, removes the
// checkout and says what the parent gets: the branch and a diff summary,
// or that nothing changed (the branch is then deleted).
func (w *worktrees) finish(t *worktree, description string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	defer func() {
		w.mu.Lock()
		delete(w.active, t.dir)
		w.mu.Unlock()
		_, _ = git(ctx, t.repo, "worktree", "remove", "--force", t.dir)
		_ = os.RemoveAll(t.dir)
		_ = os.Remove(t.dir + ".pid")
	}()
	if _, err := git(ctx, t.dir, "add", "-A"); err != nil {
		return "", err
	}
	if _, err := git(ctx, t.dir, "diff", "--cached", "--quiet"); err == nil {
		_, _ = git(ctx, t.repo, "worktree", "remove", "--force", t.dir)
		_, _ = git(ctx, t.repo, "branch", "-D", t.branch)
		return "Worktree isolation: the sub-agent changed no files; its branch was deleted.", nil
	}
	msg := "hew sub-agent: " + strings.TrimSpace(description)
	args := []string{"commit", "-q", "--no-verify", "-m", msg}
	if email, _ := git(ctx, t.dir, "config", "user.email"); strings.TrimSpace(email) == "" {
		args = append([]string{"-c", "user.name=hew", "-c", "user.email=hew@localhost"}, args...)
	}
	if _, err := git(ctx, t.dir, args...); err != nil {
		return "", err
	}
	stat, err := git(ctx, t.repo, "diff", "--stat", t.base, t.branch)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Worktree isolation: the sub-agent's changes are committed on branch %s (from %s); the main checkout is unchanged.\nDiff summary (git diff --stat %s %s):\n%s\nMerge them with: git merge %s",
		t.branch, shortHash(t.base), shortHash(t.base), t.branch, strings.TrimRight(stat, "\n"), t.branch), nil
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// cleanStale removes worktrees left by a hew that is gone: not active here,
// and their pid file is missing or older than staleAfter. Called with mu held.
func (w *worktrees) cleanStale(ctx context.Context, repo, parent string) {
	_, _ = git(ctx, repo, "worktree", "prune")
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "agent-") {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if w.active[dir] {
			continue
		}
		info, err := os.Stat(dir + ".pid")
		if err == nil && w.clock().Sub(info.ModTime()) < staleAfter {
			continue
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			continue
		}
		_, _ = git(ctx, repo, "worktree", "remove", "--force", dir)
		_ = os.RemoveAll(dir)
		_ = os.Remove(dir + ".pid")
	}
	_, _ = git(ctx, repo, "worktree", "prune")
}
