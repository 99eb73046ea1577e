package checkpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree is every file under root (except .git) with its content and mode.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		fi, _ := d.Info()
		data, _ := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%o:%s", fi.Mode().Perm(), data)
		return nil
	})
	return out
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testenv.Git(t, dir, args...)
}

func bash(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash %q: %v\n%s", script, err, out)
	}
}

func newStore(t *testing.T, root string, git bool) *Store {
	t.Helper()
	o := Options{Root: root, StateDir: filepath.Join(realDir(t), "state"), Env: os.Environ()}
	if git {
		o.Git = testenv.Tool(t, "git")
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// call runs fn as one tool call between BeforeChange and AfterChange.
func call(t *testing.T, tr *Tracker, id, tool string, input string, fn func()) []string {
	t.Helper()
	ctx := context.Background()
	if err := tr.BeforeChange(ctx, id, tool, json.RawMessage(input)); err != nil {
		t.Fatal(err)
	}
	fn()
	cp, files, err := tr.AfterChange(ctx, id, tool, json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	if cp == "" {
		t.Fatalf("call %s: no checkpoint id", id)
	}
	return files
}

// The scenario in a real git repository: edit, write and a shell
// command that creates, modifies and deletes files (sed -i, rm, mv); undo
// restores the tree byte for byte, and the user's branch, index, stash and
// status are as they were.
func TestUndoShellAndFileChangesInGitRepo(t *testing.T) {
	testenv.Tool(t, "bash")
	root := realDir(t)
	s := newStore(t, root, true)
	gitCmd(t, root, "init", "-q", "-b", "feature")
	write(t, root, "a.txt", "alpha\n")
	write(t, root, "b.txt", "bravo\n")
	write(t, root, "sub/c.txt", "charlie\n")
	write(t, root, ".gitignore", "build/\n")
	write(t, root, "build/out.bin", "generated\n")
	gitCmd(t, root, "add", "-A")
	gitCmd(t, root, "commit", "-q", "-m", "first")
	write(t, root, "a.txt", "alpha changed by the user\n")
	gitCmd(t, root, "stash", "-q")
	write(t, root, "b.txt", "bravo staged\n")
	gitCmd(t, root, "add", "b.txt")
	write(t, root, "wip.txt", "untracked work\n")

	before := tree(t, root)
	status := gitCmd(t, root, "status", "--porcelain=v1")
	branch := gitCmd(t, root, "branch", "--show-current")
	stash := gitCmd(t, root, "stash", "list")
	index := gitCmd(t, root, "ls-files", "-s")

	tr := s.Tracker("sess1")
	tr.TurnStart("refactor everything")
	call(t, tr, "c1", "edit_file", `{"file_path":"a.txt"}`, func() { write(t, root, "a.txt", "edited\n") })
	call(t, tr, "c2", "write_file", `{"file_path":"new/d.txt"}`, func() { write(t, root, "new/d.txt", "delta\n") })
	files := call(t, tr, "c3", "run_shell", `{"command":"…"}`, func() {
		bash(t, root, "sed -i 's/bravo/BRAVO/' b.txt && rm sub/c.txt && mv wip.txt moved.txt && printf 'x\\000y' > blob.bin && chmod +x blob.bin && echo rebuilt > build/out.bin")
	})
	sort.Strings(files)
	want := []string{"b.txt", "blob.bin", "moved.txt", "sub/c.txt", "wip.txt"}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Fatalf("shell call changed %v, want %v (build/ is ignored)", files, want)
	}
	if err := tr.TurnEnd(context.Background()); err != nil {
		t.Fatal(err)
	}

	turns, err := s.Turns("sess1")
	if err != nil || len(turns) != 1 {
		t.Fatalf("turns = %v, %v", turns, err)
	}
	if got := len(turns[0].Changes); got != 7 {
		t.Fatalf("turn has %d changes, want 7: %+v", got, turns[0].Changes)
	}
	for _, c := range turns[0].Changes {
		if len(c.Calls) == 0 {
			t.Errorf("%s: no tool call linked", c.Path)
		}
	}

	plan, err := s.PlanUndo("sess1", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Refused) != 0 || len(plan.Actions) != 7 {
		t.Fatalf("plan: %s", plan.Summary())
	}
	if _, err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	after := tree(t, root)
	// build/ is ignored: undo leaves the rebuilt output alone.
	before["build/out.bin"] = after["build/out.bin"]
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("tree not restored:\nbefore %v\nafter  %v", before, after)
	}
	if strings.Contains(after["build/out.bin"], "generated") {
		t.Fatal("ignored build output was restored; it should be left alone")
	}
	for name, pair := range map[string][2]string{
		"status": {status, gitCmd(t, root, "status", "--porcelain=v1")},
		"branch": {branch, gitCmd(t, root, "branch", "--show-current")},
		"stash":  {stash, gitCmd(t, root, "stash", "list")},
		"index":  {index, gitCmd(t, root, "ls-files", "-s")},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s changed:\n%s\n---\n%s", name, pair[0], pair[1])
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Error("directory created by the turn is still there")
	}
	// A second undo finds nothing left.
	plan, _ = s.PlanUndo("sess1", 1, false)
	if len(plan.Turns) != 0 {
		t.Fatalf("second undo: %s", plan.Summary())
	}
}

// A file the user changed after the turn is refused with a diff; the other
// files are still taken back; --force takes it back too.
func TestUndoRefusesConflicts(t *testing.T) {
	for _, git := range []bool{true, false} {
		t.Run(fmt.Sprintf("git=%v", git), func(t *testing.T) {
			root := realDir(t)
			s := newStore(t, root, git)
			write(t, root, "a.txt", "one\n")
			write(t, root, "b.txt", "two\n")
			tr := s.Tracker("s")
			tr.TurnStart("change both")
			call(t, tr, "1", "write_file", `{"file_path":"a.txt"}`, func() { write(t, root, "a.txt", "ONE\n") })
			call(t, tr, "2", "edit_file", `{"file_path":"`+filepath.Join(root, "b.txt")+`"}`, func() { write(t, root, "b.txt", "TWO\n") })
			tr.TurnEnd(context.Background())
			write(t, root, "b.txt", "TWO and the user's line\n")

			plan, err := s.PlanUndo("s", 1, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Actions) != 1 || plan.Actions[0].Path != "a.txt" || len(plan.Refused) != 1 {
				t.Fatalf("plan: %s", plan.Summary())
			}
			if !strings.Contains(plan.Refused[0].Diff, "+TWO and the user's line") {
				t.Fatalf("refusal has no diff: %q", plan.Refused[0].Diff)
			}
			if _, err := plan.Apply(); err != nil {
				t.Fatal(err)
			}
			got := tree(t, root)
			if got["a.txt"] != "644:one\n" || got["b.txt"] != "644:TWO and the user's line\n" {
				t.Fatalf("after undo: %v", got)
			}

			// Force on a fresh turn.
			tr.TurnStart("again")
			call(t, tr, "3", "write_file", `{"file_path":"b.txt"}`, func() { write(t, root, "b.txt", "three\n") })
			tr.TurnEnd(context.Background())
			write(t, root, "b.txt", "user again\n")
			plan, _ = s.PlanUndo("s", 1, true)
			if len(plan.Refused) != 0 || len(plan.Actions) != 1 {
				t.Fatalf("forced plan: %s", plan.Summary())
			}
			plan.Apply()
			if got := tree(t, root)["b.txt"]; got != "644:TWO and the user's line\n" {
				t.Fatalf("forced undo left %q", got)
			}
		})
	}
}

// Turns that only read take no snapshot; undoing two turns goes back in order.
func TestLazyAndMultiTurn(t *testing.T) {
	root := realDir(t)
	s := newStore(t, root, true)
	write(t, root, "f.txt", "v0\n")
	tr := s.Tracker("s")
	tr.TurnStart("just look")
	tr.TurnEnd(context.Background())
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Fatal("a read-only turn created the store")
	}
	for i := 1; i <= 3; i++ {
		tr.TurnStart(fmt.Sprintf("turn %d", i))
		call(t, tr, fmt.Sprint(i), "write_file", `{"file_path":"f.txt"}`, func() { write(t, root, "f.txt", fmt.Sprintf("v%d\n", i)) })
		tr.TurnEnd(context.Background())
	}
	plan, err := s.PlanUndo("s", 2, false)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(plan.Seqs) != "[3 2]" {
		t.Fatalf("seqs %v", plan.Seqs)
	}
	plan.Apply()
	if got := tree(t, root)["f.txt"]; got != "644:v1\n" {
		t.Fatalf("after undoing two turns: %q", got)
	}
	turns, _ := s.Turns("s")
	if !turns[2].Undone || !turns[1].Undone || turns[0].Undone {
		t.Fatalf("undone flags wrong: %v %v %v", turns[0].Undone, turns[1].Undone, turns[2].Undone)
	}
}

// The copy store (no git) tracks the file tools and says it cannot follow
// the shell.
func TestCopyStoreSaysShellIsUntracked(t *testing.T) {
	root := realDir(t)
	s := newStore(t, root, false)
	write(t, root, "x.txt", "x\n")
	tr := s.Tracker("s")
	tr.TurnStart("t")
	call(t, tr, "1", "write_file", `{"file_path":"x.txt"}`, func() { write(t, root, "x.txt", "y\n") })
	tr.BeforeChange(context.Background(), "2", "run_shell", json.RawMessage(`{"command":"touch z"}`))
	tr.AfterChange(context.Background(), "2", "run_shell", json.RawMessage(`{"command":"touch z"}`))
	tr.TurnEnd(context.Background())
	plan, _ := s.PlanUndo("s", 1, false)
	if len(plan.Notes) != 1 || !strings.Contains(plan.Notes[0], "not tracked") {
		t.Fatalf("notes %v", plan.Notes)
	}
	plan.Apply()
	if got := tree(t, root)["x.txt"]; got != "644:x\n" {
		t.Fatalf("x.txt = %q", got)
	}
}

// Paths in a (tampered) log that would leave the project are refused.
func TestNeverOutsideTheProject(t *testing.T) {
	root := realDir(t)
	s := newStore(t, root, true)
	for _, p := range []string{"../evil", "/etc/passwd", "a/../../evil", ".git/config", "x\x00y"} {
		if _, err := s.abs(p); err == nil {
			t.Errorf("abs(%q) allowed", p)
		}
	}
	outside := realDir(t)
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.abs("link/file"); err == nil {
		t.Error("a path through a symlink leading outside was allowed")
	}
}

// Two processes' worth of trackers on one store keep separate sessions.
func TestConcurrentSessions(t *testing.T) {
	root := realDir(t)
	s1 := newStore(t, root, true)
	s2, _ := Open(Options{Root: root, StateDir: filepath.Dir(s1.Dir()), Git: s1.opts.Git, Env: os.Environ()})
	done := make(chan error, 2)
	for i, s := range []*Store{s1, s2} {
		go func(i int, s *Store) {
			tr := s.Tracker(fmt.Sprintf("s%d", i))
			for j := 0; j < 5; j++ {
				tr.TurnStart("t")
				rel := fmt.Sprintf("f%d-%d.txt", i, j)
				if err := tr.BeforeChange(context.Background(), "c", "write_file", nil); err != nil {
					done <- err
					return
				}
				os.WriteFile(filepath.Join(root, rel), []byte("x"), 0o644)
				if _, _, err := tr.AfterChange(context.Background(), "c", "write_file", nil); err != nil {
					done <- err
					return
				}
				if err := tr.TurnEnd(context.Background()); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(i, s)
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		turns, err := s1.Turns(fmt.Sprintf("s%d", i))
		if err != nil || len(turns) != 5 {
			t.Fatalf("session %d: %d turns, %v", i, len(turns), err)
		}
	}
}

func TestPruneByAge(t *testing.T) {
	root := realDir(t)
	s := newStore(t, root, true)
	now := time.Now()
	s.opts.Now = func() time.Time { return now }
	write(t, root, "f", "1")
	tr := s.Tracker("old")
	tr.TurnStart("t")
	call(t, tr, "1", "write_file", `{"file_path":"f"}`, func() { write(t, root, "f", "2") })
	tr.TurnEnd(context.Background())
	old := now.Add(-40 * 24 * time.Hour)
	os.Chtimes(s.logPath("old"), old, old)
	n, err := s.Prune()
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	if turns, _ := s.Turns("old"); len(turns) != 0 {
		t.Fatal("old session still has turns")
	}
	if size, _ := s.Size(); size <= 0 {
		t.Fatal("size not measured")
	}
}

// BenchmarkCheckpoint measures one turn's checkpoint (snapshot before the
// change, after it, and the turn record) on a 10,000-file tree: "fresh" is
// the first change of a session (every file hashed), "one-file" a later
// turn that changed one file (only changed files are hashed again).
func BenchmarkCheckpoint(b *testing.B) {
	git, err := exec.LookPath("git")
	if err != nil {
		b.Skip("git not installed")
	}
	root, _ := filepath.EvalSymlinks(b.TempDir())
	for i := 0; i < 10000; i++ {
		p := filepath.Join(root, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line %d\n", i), 40)), 0o644)
	}
	turn := func(s *Store, session string, i int) {
		tr := s.Tracker(session)
		tr.TurnStart("t")
		ctx := context.Background()
		if err := tr.BeforeChange(ctx, "c", "run_shell", nil); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, "d00", "f00000.go"), []byte(fmt.Sprint(i)), 0o644)
		if _, _, err := tr.AfterChange(ctx, "c", "run_shell", nil); err != nil {
			b.Fatal(err)
		}
		if err := tr.TurnEnd(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("fresh", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, _ := Open(Options{Root: root, StateDir: b.TempDir(), Git: git, Env: os.Environ()})
			turn(s, "s", i)
		}
	})
	b.Run("one-file", func(b *testing.B) {
		s, _ := Open(Options{Root: root, StateDir: b.TempDir(), Git: git, Env: os.Environ()})
		turn(s, "s", -1)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			turn(s, "s", i)
		}
	})
}

// A large binary file is snapshotted and restored byte for byte.
func TestLargeBinaryFile(t *testing.T) {
	root := realDir(t)
	s := newStore(t, root, true)
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i*7 + i>>9)
	}
	p := filepath.Join(root, "model.bin")
	os.WriteFile(p, big, 0o644)
	tr := s.Tracker("s")
	tr.TurnStart("shrink it")
	call(t, tr, "1", "run_shell", `{"command":"truncate"}`, func() { os.WriteFile(p, big[:100], 0o644) })
	tr.TurnEnd(context.Background())
	plan, err := s.PlanUndo("s", 1, false)
	if err != nil || len(plan.Actions) != 1 {
		t.Fatalf("plan %v: %s", err, plan.Summary())
	}
	plan.Apply()
	got, _ := os.ReadFile(p)
	if len(got) != len(big) || string(got) != string(big) {
		t.Fatalf("restored %d bytes, want %d identical", len(got), len(big))
	}
}

// With HEW_HOME inside the project the store never snapshots itself.
func TestStateDirInsideProjectIsExcluded(t *testing.T) {
	root := realDir(t)
	s, err := Open(Options{Root: root, StateDir: filepath.Join(root, ".hewhome", "projects", "k"), Git: testenv.Tool(t, "git"), Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "a.txt", "a")
	tr := s.Tracker("s")
	tr.TurnStart("t")
	files := call(t, tr, "1", "write_file", `{"file_path":"a.txt"}`, func() { write(t, root, "a.txt", "b") })
	tr.TurnEnd(context.Background())
	tr.TurnStart("t2")
	files2 := call(t, tr, "2", "write_file", `{"file_path":"a.txt"}`, func() { write(t, root, "a.txt", "c") })
	tr.TurnEnd(context.Background())
	if strings.Join(files, ",") != "a.txt" || strings.Join(files2, ",") != "a.txt" {
		t.Fatalf("changed files %v / %v: the store saw itself", files, files2)
	}
}

// The bulk import of a first snapshot makes the same tree as git add -A:
// modes, symlinks, ignored files, names with spaces and unicode.
func TestBulkImportMatchesAdd(t *testing.T) {
	root := realDir(t)
	write(t, root, "a.txt", "a\n")
	write(t, root, "dir with space/ü.txt", "u\n")
	write(t, root, ".gitignore", "*.log\nbuild/\n")
	write(t, root, "x.log", "ignored\n")
	write(t, root, "build/out", "ignored\n")
	write(t, root, "run.sh", "#!/bin/sh\n")
	os.Chmod(filepath.Join(root, "run.sh"), 0o755)
	os.Symlink("a.txt", filepath.Join(root, "link"))
	// More objects than fast-import's unpack limit (100), so they land in a pack.
	for i := range 150 {
		write(t, root, fmt.Sprintf("many/f%d.txt", i), fmt.Sprint(i))
	}
	trees := map[bool]string{}
	for _, bulk := range []bool{true, false} {
		s := newStore(t, root, true)
		s.be.(*gitBackend).noBulk = !bulk
		tree, err := s.be.snapshot("s", nil)
		if err != nil {
			t.Fatal(err)
		}
		trees[bulk] = tree
		packs, _ := filepath.Glob(filepath.Join(s.Dir(), "git", "objects", "pack", "*.pack"))
		if bulk != (len(packs) > 0) {
			t.Fatalf("bulk=%v: %d pack(s) in the store", bulk, len(packs))
		}
	}
	if trees[true] != trees[false] {
		t.Fatalf("bulk import tree %s, git add tree %s", trees[true], trees[false])
	}
}

// The copy store (no git) keeps content-addressed copies; pruning a session
// must also delete the copies only it named, keep what the remaining
// sessions need (they still undo byte for byte), and leave files written
// within the grace period (a turn in progress elsewhere) alone.
func TestPruneSweepsCopyStore(t *testing.T) {
	root := realDir(t)
	s := newStore(t, root, false)
	now := time.Now()
	s.opts.Now = func() time.Time { return now }
	turn := func(session, file, before, after string) {
		t.Helper()
		write(t, root, file, before)
		tr := s.Tracker(session)
		tr.TurnStart("t")
		call(t, tr, "1", "write_file", `{"file_path":"`+file+`"}`, func() { write(t, root, file, after) })
		if err := tr.TurnEnd(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	turn("old", "a.txt", "only the old session had this\n", "old after\n")
	turn("new", "b.txt", "the new session needs this\n", "new after\n")
	blobs := func() map[string]bool {
		out := map[string]bool{}
		filepath.WalkDir(filepath.Join(s.dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out[d.Name()] = true
			}
			return nil
		})
		return out
	}
	all := blobs()
	if len(all) != 4 {
		t.Fatalf("want 4 copies before pruning, got %d", len(all))
	}
	// Everything so far is two days old; then a stray copy appears now (a
	// turn in progress in another process).
	past := now.Add(-48 * time.Hour)
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, past, past)
		}
		return nil
	})
	fresh := filepath.Join(s.dir, "blobs", "ff", "ff"+strings.Repeat("0", 62))
	os.MkdirAll(filepath.Dir(fresh), 0o755)
	os.WriteFile(fresh, []byte("in progress"), 0o644)
	old := now.Add(-40 * 24 * time.Hour)
	os.Chtimes(s.logPath("old"), old, old)

	if n, err := s.Prune(); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	left := blobs()
	for _, want := range []string{"the new session needs this\n", "new after\n"} {
		if !left[sha256Hex([]byte(want))] {
			t.Errorf("the copy of %q, still needed, was deleted", want)
		}
	}
	for _, gone := range []string{"only the old session had this\n", "old after\n"} {
		if left[sha256Hex([]byte(gone))] {
			t.Errorf("the copy of %q (pruned session only) is still there", gone)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a copy written within the grace period was deleted: %v", err)
	}
	plan, err := s.PlanUndo("new", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(got) != "the new session needs this\n" {
		t.Errorf("undo after pruning: b.txt = %q", got)
	}
}
