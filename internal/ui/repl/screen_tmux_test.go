package repl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

// startFake starts the test binary's fake REPL in a w×h tmux pane, in dir.
func startFake(t *testing.T, w, h int, dir string) *tmuxSession {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no tmux on windows")
	}
	testenv.Tool(t, "tmux")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ts := &tmuxSession{t: t, socket: fmt.Sprintf("hew-screen-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", ts.socket, "kill-server").Run() })
	ts.run("-f", "/dev/null", "new-session", "-d", "-s", "hew", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-c", dir,
		"env", "HEW_REPL_TEST_MAIN=1", "HEW_TEST_HISTORY="+filepath.Join(dir, "history"), "HOME="+dir,
		"sh", "-c", `trap : INT; "$0"; echo $? > "$1"`, exe, ts.exitFile(dir))
	ts.run("set-option", "-t", "hew", "remain-on-exit", "on")
	ts.waitPrompts(1)
	return ts
}

// visible is what the pane shows now (no scrollback), one string per row.
func (ts *tmuxSession) visible() []string {
	return strings.Split(strings.TrimSuffix(ts.run("capture-pane", "-p", "-t", "hew"), "\n"), "\n")
}

// cursor is the pane's cursor position.
func (ts *tmuxSession) cursor() (x, y int) {
	out := strings.Fields(ts.run("display-message", "-p", "-t", "hew", "#{cursor_x} #{cursor_y}"))
	x, _ = strconv.Atoi(out[0])
	y, _ = strconv.Atoi(out[1])
	return x, y
}

// promptShows waits until the row under the cursor is the prompt holding
// exactly text, with the cursor after it, and returns the visible rows.
func (ts *tmuxSession) promptShows(text string) []string {
	ts.t.Helper()
	want := strings.TrimRight("› "+text, " ")
	var rows []string
	ts.waitScreen(fmt.Sprintf("the prompt %q under the cursor", want), func(string) bool {
		rows = ts.visible()
		x, y := ts.cursor()
		return y < len(rows) && strings.TrimRight(rows[y], " ") == want && x == visibleWidth("› "+text)
	})
	return rows
}

// TestPromptStaysVisibleUnderTmux fills the screen so the prompt sits on
// the bottom row and checks, by reading the screen, that the prompt is
// there and nothing above it was overwritten: after command output, after
// a turn, after type-ahead, after resizes.
func TestPromptStaysVisibleUnderTmux(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}, {50, 12}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			w, h := size[0], size[1]
			ts := startFake(t, w, h, t.TempDir())
			ts.keys("many", "Enter")
			ts.waitText("output line 80")
			rows := ts.promptShows("")
			if _, y := ts.cursor(); y != h-1 {
				t.Errorf("prompt on row %d, want the bottom row %d", y, h-1)
			}
			if got := rows[h-3]; got != "output line 80" {
				t.Errorf("row above the blank line = %q, want the last output line\n%s", got, strings.Join(rows, "\n"))
			}

			// Command output at the bottom row keeps every line.
			for i := 0; i < 3; i++ {
				ts.keys("/cost", "Enter")
				ts.waitScreen("/cost answered", func(string) bool {
					return strings.Count(ts.screen(), "· 250 out ·") == i+1
				})
				rows = ts.promptShows("")
				if got := rows[h-2]; !strings.Contains(got, "250 out") && w >= 70 {
					t.Errorf("row above the prompt = %q, want /cost's line\n%s", got, strings.Join(rows, "\n"))
				}
				if got := rows[h-3]; !strings.HasPrefix(got, "› /cost") && w >= 70 {
					t.Errorf("two rows up = %q, want the command as typed\n%s", got, strings.Join(rows, "\n"))
				}
			}

			// Typing at the bottom row edits the prompt row only.
			ts.keys("typed text")
			rows = ts.promptShows("typed text")
			if w >= 70 && !strings.Contains(rows[h-2], "250 out") {
				t.Errorf("typing overwrote the row above: %q", rows[h-2])
			}

			// Type-ahead during a turn, then Esc: the turn stops and the
			// prompt comes back holding what was typed meanwhile.
			ts.keys("C-u", "slow", "Enter")
			ts.waitText("chunk 3")
			ts.keys("next ", "task")
			ts.keys("Escape")
			ts.waitText("Interrupted")
			rows = ts.promptShows("next task")
			if y := indexOf(rows, "⏹ Interrupted · the conversation is kept"); y < 0 {
				t.Errorf("interrupt line missing or damaged:\n%s", strings.Join(rows, "\n"))
			}

			// A resize leaves exactly one prompt, in place.
			for _, nw := range []int{w - 17, w + 10, w} {
				ts.run("resize-window", "-t", "hew", "-x", strconv.Itoa(nw), "-y", strconv.Itoa(h))
				rows = ts.promptShows("next task")
				if n := strings.Count(strings.Join(rows, "\n"), "› next task"); n != 1 {
					t.Errorf("after resizing to %d columns the prompt shows %d times:\n%s", nw, n, strings.Join(rows, "\n"))
				}
			}

			// A message longer than the row wraps and stays whole.
			long := strings.Repeat("wrap 世界 ", w/8+3)
			ts.keys("C-u", long)
			ts.keys("Enter")
			ts.waitFlat(fmt.Sprintf("echo: %q", long))
			ts.promptShows("")
		})
	}
}

// waitFlat waits for s on the screen, ignoring how it was wrapped: the
// renderer word-wraps long output into rows of its own.
func (ts *tmuxSession) waitFlat(s string) {
	ts.t.Helper()
	flat := strings.NewReplacer(" ", "", "\n", "").Replace
	ts.waitScreen(fmt.Sprintf("%q, wrapped", s), func(sc string) bool { return strings.Contains(flat(sc), flat(s)) })
}

func indexOf(rows []string, s string) int {
	for i, r := range rows {
		if strings.TrimRight(r, " ") == s {
			return i
		}
	}
	return -1
}

// TestWideCharEditingUnderTmux edits CJK, emoji and combining marks at the
// start, middle and end of a line and reads the result off the screen and
// from what was sent.
func TestWideCharEditingUnderTmux(t *testing.T) {
	ts := startFake(t, 60, 20, t.TempDir())
	steps := []struct {
		keys []string
		want string
	}{
		{[]string{"ab", "Home", "テ", "X"}, "テXab"},     // the reported bug: insert after a wide char
		{[]string{"End", "世界"}, "テXab世界"},              // at the end
		{[]string{"Left", "BSpace"}, "テXab界"},          // delete a wide char mid-line
		{[]string{"Home", "Delete"}, "Xab界"},           // delete at the start
		{[]string{"Home", "Right", "中"}, "X中ab界"},      // insert in the middle
		{[]string{"End", "👍", "Left", "!"}, "X中ab界!👍"}, // emoji
		{[]string{"End", "e\u0301"}, "X中ab界!👍e\u0301"}, // a combining mark joins its letter
		{[]string{"BSpace"}, "X中ab界!👍"},                // …and goes with it
	}
	for _, st := range steps {
		for _, k := range st.keys {
			if k == "Home" || k == "End" || k == "Left" || k == "Right" || k == "BSpace" || k == "Delete" {
				ts.keys(k)
			} else {
				ts.run("send-keys", "-t", "hew", "-l", k)
				time.Sleep(keyDelay)
			}
		}
		ts.promptShowsWithCursorAnywhere(st.want)
	}
	ts.keys("Enter")
	ts.waitText(`echo: "X中ab界!👍"`)

	// Wrapping: wide characters never split across rows, and the line
	// sent is exactly what was typed, edited in its middle.
	line := strings.Repeat("漢字", 20) // 80 columns: two rows at 60
	ts.run("send-keys", "-t", "hew", "-l", line)
	ts.keys("Home")
	for range 3 {
		ts.keys("Right")
	}
	ts.run("send-keys", "-t", "hew", "-l", "カ")
	ts.keys("Enter")
	want := fmt.Sprintf("echo: %q", "漢字漢カ字"+strings.Repeat("漢字", 18))
	ts.waitFlat(want)
}

// promptShowsWithCursorAnywhere waits for the prompt row to hold text.
func (ts *tmuxSession) promptShowsWithCursorAnywhere(text string) {
	ts.t.Helper()
	want := "› " + text
	ts.waitScreen(fmt.Sprintf("the prompt %q", want), func(string) bool {
		rows := ts.visible()
		_, y := ts.cursor()
		return y < len(rows) && strings.TrimRight(rows[y], " ") == want
	})
}

// TestKeysUnderTmux covers the keys SPEC §5 lists.
func TestKeysUnderTmux(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "README.md"), "read me\n")
	ts := startFake(t, 100, 30, dir)

	// Newlines: Ctrl+J, Alt+Enter, backslash Enter.
	ts.keys("one", "C-j", "two", "M-Enter", "three\\", "Enter", "four")
	ts.waitText("  four")
	ts.keys("Enter")
	ts.waitText(`echo: "one\ntwo\nthree\nfour"`)

	// Shift+Tab cycles the permission mode, shown in the prompt.
	ts.keys("BTab")
	ts.waitText("[acceptEdits] › ")
	ts.keys("BTab")
	ts.waitText("[plan] › ")
	ts.keys("BTab", "BTab")
	ts.promptShows("")

	// Tab completes commands and @paths; @path attaches the file.
	ts.keys("/he", "Tab")
	ts.promptShows("/help ")
	ts.keys("C-u", "summarise @REA", "Tab")
	ts.promptShows("summarise @README.md ")
	ts.keys("Enter")
	ts.waitText("· attached README.md (1 lines, 8 B)")
	ts.waitText(`<attached-file path=\"README.md\">\nread me\n</attached-file>`)

	// Ctrl+O shows the last tool call's whole output.
	ts.keys("tool", "Enter")
	ts.waitText("ran it")
	if sc := ts.screen(); strings.Contains(sc, "result row 20") {
		t.Fatalf("the tool result was not shortened:\n%s", sc)
	}
	ts.keys("C-o")
	ts.waitText("result row 20")
	ts.promptShows("")

	// Esc stops a turn; so does Esc at an approval question.
	ts.keys("slow", "Enter")
	ts.waitText("chunk 3")
	ts.keys("Escape")
	ts.waitText("Interrupted")
	ts.keys("ask", "Enter")
	ts.waitText("Allow run_shell?")
	ts.keys("Escape")
	ts.waitText(`approval=no why="the turn was interrupted"`)
	ts.waitScreen("the second interruption", func(sc string) bool { return strings.Count(sc, "Interrupted") == 2 })

	// "no, with a message" at a question: typed fast, in CJK, one erased.
	ts.keys("ask", "Enter")
	ts.waitScreen("a second question", func(sc string) bool { return strings.Count(sc, "Allow run_shell?") == 2 })
	ts.keys("m")
	ts.waitText("message for the model")
	ts.run("send-keys", "-t", "hew", "-l", "使うなX")
	ts.keys("BSpace", "BSpace", "Enter")
	ts.waitText(`approval=no why="使う"`)

	// History: Up recalls the last message.
	ts.promptShows("")
	ts.keys("Up")
	ts.promptShows("ask")
	ts.keys("C-u")

	// Ctrl+C is not echoed as ^C anywhere.
	ts.keys("draft", "C-c")
	ts.promptShows("")
	if sc := ts.screen(); strings.Contains(sc, "^C") {
		t.Errorf("^C echoed:\n%s", sc)
	}
	ts.keys("C-d")
	if st := ts.waitExit(); st != "0" {
		t.Errorf("exit status = %s", st)
	}
}
