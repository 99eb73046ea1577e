package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/testenv"
)

// snapshotTree is every file of the project (but .git) with mode and bytes.
func snapshotTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fi, _ := d.Info()
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %o %q\n", filepath.ToSlash(rel), fi.Mode().Perm(), data)
		return nil
	})
	return b.String()
}

// A mock-driven turn edits, writes and runs a shell command that creates,
// modifies and deletes files; `hew undo` restores the tree byte for byte and
// leaves the user's branch, index, stash and status as they were; a second
// undo finds nothing (exit 1). The same in a plain directory.
func TestUndoRestoresEveryToolsChanges(t *testing.T) {
	testenv.Tool(t, "bash")
	for _, gitRepo := range []bool{true, false} {
		t.Run(fmt.Sprintf("git_repo=%v", gitRepo), func(t *testing.T) {
			s := newSandbox(t, gitRepo)
			s.write("a.txt", "alpha\n")
			s.write("b.txt", "bravo\n")
			s.write("c.txt", "charlie\n")
			s.write("d.txt", "delta\n")
			var status, branch, stash, index string
			if gitRepo {
				s.write(".gitignore", "out/\n")
				s.git("add", "-A")
				s.git("commit", "-q", "-m", "base")
				s.write("a.txt", "alpha (stashed edit)\n")
				s.git("stash", "-q")
				s.write("d.txt", "delta staged\n")
				s.git("add", "d.txt")
				status, branch = s.git("status", "--porcelain"), s.git("branch", "--show-current")
				stash, index = s.git("stash", "list"), s.git("ls-files", "-s")
			}
			before := snapshotTree(t, s.proj)
			sc := s.scenario("undo.json", `{"turns": [
			  {"tool_calls": [{"name": "read_file", "input": {"file_path": "a.txt"}}]},
			  {"tool_calls": [
			    {"name": "edit_file", "input": {"file_path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}},
			    {"name": "write_file", "input": {"file_path": "new/e.txt", "content": "echo\n"}},
			    {"name": "run_shell", "input": {"command": "sed -i 's/bravo/BRAVO/' b.txt && rm c.txt && mv d.txt moved.txt && mkdir -p out && echo built > out/x"}}
			  ]},
			  {"text": "Done."}
			]}`)
			r := s.run([]string{"HEW_MOCK_SCRIPT=" + sc}, "--mock", "-p", "--yolo", "--verbose", "change things")
			if r.code != 0 {
				t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			// --verbose and hew sessions show tell which call changed which file.
			if !strings.Contains(r.stderr, "changed b.txt, c.txt, d.txt, moved.txt") {
				t.Errorf("--verbose receipt does not name the shell call's files:\n%s", r.stderr)
			}
			files := s.sessionFiles()
			if len(files) != 1 {
				t.Fatalf("session files: %v", files)
			}
			show := s.run(nil, "sessions", "show", strings.TrimSuffix(filepath.Base(files[0]), ".jsonl"))
			if !strings.Contains(show.stdout, "changed a.txt (checkpoint") || !strings.Contains(show.stdout, "changed new/e.txt (checkpoint") {
				t.Errorf("sessions show does not link calls to files:\n%s", show.stdout)
			}
			if s.read("b.txt") != "BRAVO\n" || s.read("a.txt") == "alpha\n" {
				t.Fatalf("the turn did not change the files:\n%s", r.stderr)
			}

			r = s.run(nil, "checkpoints", "list", "--json")
			if r.code != 0 {
				t.Fatalf("checkpoints list: %d %s", r.code, r.stderr)
			}
			var list struct {
				Turns []struct {
					Files []map[string]string `json:"files"`
					Calls []struct {
						Tool  string   `json:"tool"`
						Files []string `json:"files"`
					} `json:"calls"`
				} `json:"turns"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Turns) != 1 {
				t.Fatalf("checkpoints list --json: %v\n%s", err, r.stdout)
			}
			want := 7 // a, b, c, d, moved, new/e, out/x
			if gitRepo {
				want = 6 // out/ is ignored there
			}
			if n := len(list.Turns[0].Files); n != want {
				t.Fatalf("turn lists %d files, want %d: %s", n, want, r.stdout)
			}
			tools := map[string]bool{}
			for _, c := range list.Turns[0].Calls {
				tools[c.Tool] = true
			}
			if !tools["run_shell"] || !tools["edit_file"] || !tools["write_file"] {
				t.Fatalf("calls not linked to their files: %s", r.stdout)
			}

			r = s.run(nil, "undo", "--dry-run")
			if r.code != 0 || !strings.Contains(r.stdout, "dry run") || s.read("b.txt") != "BRAVO\n" {
				t.Fatalf("dry run: %d\n%s", r.code, r.stdout)
			}
			r = s.run(nil, "undo")
			if r.code != 0 {
				t.Fatalf("undo: %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			after := snapshotTree(t, s.proj)
			if gitRepo {
				// out/ is ignored: undo leaves build output alone.
				after = strings.ReplaceAll(after, "out/x 644 \"built\\n\"\n", "")
			}
			if after != before {
				t.Fatalf("tree not restored:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if gitRepo {
				for name, pair := range map[string][2]string{
					"status": {status, s.git("status", "--porcelain")},
					"branch": {branch, s.git("branch", "--show-current")},
					"stash":  {stash, s.git("stash", "list")},
					"index":  {index, s.git("ls-files", "-s")},
				} {
					if pair[0] != pair[1] {
						t.Errorf("%s changed:\n%s---\n%s", name, pair[0], pair[1])
					}
				}
			}
			if r := s.run(nil, "undo"); r.code != 1 {
				t.Fatalf("second undo: exit %d, want 1\n%s", r.code, r.stdout)
			}
			if r := s.run(nil, "undo", "--turns", "0"); r.code != 2 {
				t.Fatalf("undo --turns 0: exit %d, want 2", r.code)
			}
		})
	}
}

// A file the user changed after the turn is refused with a diff, the rest
// is undone; --force takes it back too.
func TestUndoRefusesUserChanges(t *testing.T) {
	s := newSandbox(t, false)
	s.write("a.txt", "one\n")
	s.write("b.txt", "two\n")
	sc := s.scenario("w.json", `{"turns": [
	  {"tool_calls": [{"name": "read_file", "input": {"file_path": "a.txt"}}, {"name": "read_file", "input": {"file_path": "b.txt"}}]},
	  {"tool_calls": [
	    {"name": "write_file", "input": {"file_path": "a.txt", "content": "ONE\n"}},
	    {"name": "write_file", "input": {"file_path": "b.txt", "content": "TWO\n"}}
	  ]},
	  {"text": "ok"}
	]}`)
	if r := s.run([]string{"HEW_MOCK_SCRIPT=" + sc}, "--mock", "-p", "--accept-edits", "go"); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	s.write("b.txt", "TWO plus mine\n")
	r := s.run(nil, "undo")
	if r.code != 0 || !strings.Contains(r.stdout, "refused") || !strings.Contains(r.stdout, "+TWO plus mine") {
		t.Fatalf("undo: %d\n%s", r.code, r.stdout)
	}
	if s.read("a.txt") != "one\n" || s.read("b.txt") != "TWO plus mine\n" {
		t.Fatalf("a=%q b=%q", s.read("a.txt"), s.read("b.txt"))
	}
}
