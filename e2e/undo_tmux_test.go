//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/session"
)

// /undo and /rewind in a real terminal: /undo shows the plan, asks, and
// takes the last turn's change back; /rewind lists the user messages with
// the files each turn changed (and which were undone); /rewind 1 restores
// the code to before message 1 and drops the conversation from there, each
// after its own question; the session goes on valid from the shorter
// history.
func TestUndoAndRewindUnderTmux(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, true)
	s.write("keep.txt", "base\n")
	s.git("add", "-A")
	s.git("commit", "-q", "-m", "base")
	sc := s.scenario("rewind.json", `{"turns": [
 {"tool_calls": [{"name": "write_file", "input": {"file_path": "a.txt", "content": "one\n"}}]},
 {"text": "Made a.txt."},
 {"tool_calls": [{"name": "edit_file", "input": {"file_path": "a.txt", "old_string": "one", "new_string": "two"}}]},
 {"text": "Changed a.txt."},
 {"text": "A fresh start."}
]}`)
	ts := startTmux(t, s.proj, append(s.env, "HEW_MOCK_SCRIPT="+sc), shellQuote(hewBin)+" --mock --accept-edits")
	prompts := func(screen string) int { return strings.Count(screen, "› ") }
	ts.waitFor("the prompt", func(sc string) bool { return prompts(sc) >= 1 })

	ts.send("make a", "Enter")
	ts.waitFor("the first turn", func(sc string) bool { return strings.Contains(sc, "Made a.txt.") && prompts(sc) >= 2 })
	ts.send("change a", "Enter")
	ts.waitFor("the second turn", func(sc string) bool { return strings.Contains(sc, "Changed a.txt.") && prompts(sc) >= 3 })
	if s.read("a.txt") != "two\n" {
		t.Fatalf("a.txt = %q after two turns", s.read("a.txt"))
	}

	ts.send("/undo", "Enter")
	ts.waitFor("the undo question", func(sc string) bool { return strings.Contains(sc, "Undo these changes? [y/N]") })
	ts.send("y", "Enter")
	ts.waitFor("the undo answer", func(sc string) bool { return strings.Contains(sc, "Restored 1 file(s).") })
	if got := s.read("a.txt"); got != "one\n" {
		t.Fatalf("after /undo a.txt = %q, want the first turn's %q", got, "one\n")
	}

	ts.send("/rewind", "Enter")
	screen := ts.waitFor("the rewind list", func(sc string) bool { return strings.Contains(sc, "Type /rewind N") })
	for _, want := range []string{"1. ", "make a", "2. ", "change a", "1 file(s) changed (undone)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("rewind list lacks %q:\n%s", want, screen)
		}
	}

	ts.send("/rewind 1", "Enter")
	ts.waitFor("the code question", func(sc string) bool { return strings.Contains(sc, "Restore the code to before message 1? [y/N]") })
	ts.send("y", "Enter")
	ts.waitFor("the conversation question", func(sc string) bool {
		return strings.Contains(sc, "Drop message 1 and everything after it from the conversation? [y/N]")
	})
	if _, err := os.Stat(filepath.Join(s.proj, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt still there after rewinding the code to before message 1 (err %v)", err)
	}
	ts.send("y", "Enter")
	ts.waitFor("the rewind answer", func(sc string) bool {
		return strings.Contains(sc, "The conversation is back to before message 1 (0 messages kept).")
	})

	ts.send("start over", "Enter")
	ts.waitFor("a turn after the rewind", func(sc string) bool { return strings.Contains(sc, "A fresh start.") })
	ts.send("/exit", "Enter")
	screen = ts.waitFor("exit", func(sc string) bool { return strings.Contains(sc, "EXITED") })
	if !strings.Contains(screen, "EXITED 0") {
		t.Errorf("/exit did not exit 0:\n%s", screen)
	}
	if s.read("keep.txt") != "base\n" || s.git("status", "--porcelain") != "" {
		t.Errorf("the repository is not as it started: %q", s.git("status", "--porcelain"))
	}
	files := s.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	loaded, err := session.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	checkPaired(t, loaded.Messages)
	if len(loaded.Messages) != 2 || !strings.Contains(loaded.Messages[0].Text(), "start over") {
		t.Errorf("resumable history after the rewind: %d messages, first %q", len(loaded.Messages), loaded.Messages[0].Text())
	}
}
