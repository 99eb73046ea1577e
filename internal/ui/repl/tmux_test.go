package repl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/testenv"
	"github.com/hew-dev/hew/internal/ui/render"
)

// TestMain lets the test binary double as a small hew REPL (fake agent,
// real terminal) for the tmux test, until it can drive cmd/hew itself.
func TestMain(m *testing.M) {
	if os.Getenv("HEW_REPL_TEST_MAIN") == "1" {
		os.Exit(fakeMain())
	}
	code := m.Run()
	if builtCleanup != nil {
		builtCleanup()
	}
	os.Exit(code)
}

func fakeMain() int {
	s := term.System(term.EnvFromList(os.Environ()))
	r := render.New(s, render.Options{})
	ag := newFakeAgent()
	ag.model = "mock"
	ag.emit = r.Emit
	ap := NewApprover(s, r)
	ag.approver = ap
	go func() { // the slow turn's bookkeeping channels are for unit tests
		for {
			select {
			case <-ag.started:
			case <-ag.aborted:
			}
		}
	}()
	return Run(context.Background(), Options{
		Streams: s, Session: ag, Renderer: r, Approver: ap,
		HistoryFile: os.Getenv("HEW_TEST_HISTORY"),
	})
}

// tmuxSession drives a program in a detached tmux pane.
type tmuxSession struct {
	t      *testing.T
	socket string
	// onHang, if set, adds diagnostics when a wait gives up.
	onHang   func() string
	exitPath string
}

func (ts *tmuxSession) run(args ...string) string {
	ts.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", ts.socket}, args...)...).CombinedOutput()
	if err != nil {
		ts.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// exitFile names the file the pane's shell writes the program's exit
// status to ("trap : INT; prog; echo $? > file"). It is read instead of
// tmux's pane status, which tmux 3.3 sometimes never collects (the pane's
// process stays a zombie). The trap keeps the shell alive through the
// Ctrl+C the test sends mid-turn (the terminal signals the whole
// foreground group) without passing an ignored SIGINT on to the program.
func (ts *tmuxSession) exitFile(dir string) string {
	ts.exitPath = filepath.Join(dir, "exit-status")
	return ts.exitPath
}

// waitExit waits for the program's exit status.
func (ts *tmuxSession) waitExit() string {
	ts.t.Helper()
	var st string
	ts.waitScreen("the program to exit", func(string) bool {
		b, err := os.ReadFile(ts.exitPath)
		st = strings.TrimSpace(string(b))
		return err == nil && st != ""
	})
	return st
}

// keys sends keys one at a time, as a person types: a burst of escape
// sequences in one read is not what a line editor sees from a keyboard.
func (ts *tmuxSession) keys(keys ...string) {
	ts.t.Helper()
	for _, k := range keys {
		ts.run("send-keys", "-t", "hew", k)
		time.Sleep(keyDelay)
	}
}

func (ts *tmuxSession) screen() string {
	return ts.run("capture-pane", "-p", "-J", "-S", "-200", "-t", "hew")
}

// waitScreen polls the pane until ok holds. The limit only stops a hang.
func (ts *tmuxSession) waitScreen(what string, ok func(string) bool) string {
	ts.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		sc := ts.screen()
		if ok(sc) {
			ts.t.Logf("%s: got %s", time.Now().Format("15:04:05.000"), what)
			return sc
		}
		if time.Now().After(deadline) {
			extra := ""
			if ts.onHang != nil {
				extra = ts.onHang()
			}
			ts.t.Fatalf("waiting for %s; screen:\n%s\n%s", what, sc, extra)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (ts *tmuxSession) waitText(s string) string {
	ts.t.Helper()
	return ts.waitScreen(fmt.Sprintf("%q", s), func(sc string) bool { return strings.Contains(sc, s) })
}

// waitPrompts waits until the prompt has been drawn n times.
func (ts *tmuxSession) waitPrompts(n int) {
	ts.t.Helper()
	ts.waitScreen(fmt.Sprintf("prompt #%d", n), func(sc string) bool {
		count := 0
		for _, l := range strings.Split(sc, "\n") {
			if strings.HasPrefix(l, "›") {
				count++
			}
		}
		return count >= n
	})
}

func TestREPLUnderTmux(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no tmux on windows")
	}
	testenv.Tool(t, "tmux")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hist := filepath.Join(dir, "state", "history")
	ts := &tmuxSession{t: t, socket: fmt.Sprintf("hew-repl-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", ts.socket, "kill-server").Run() })
	ts.run("-f", "/dev/null", "new-session", "-d", "-s", "hew", "-x", "100", "-y", "40",
		"env", "HEW_REPL_TEST_MAIN=1", "HEW_TEST_HISTORY="+hist, "HOME="+dir,
		"sh", "-c", `trap : INT; "$0"; echo $? > "$1"`, exe, ts.exitFile(dir))
	ts.run("set-option", "-t", "hew", "remain-on-exit", "on")
	ts.waitPrompts(1)

	// Wide characters: type, erase one, move left over 世 and the space, insert.
	ts.keys("hello 世界", "BSpace", "Left", "Left", "X", "Enter")
	ts.waitText(`echo: "helloX 世"`)
	ts.waitPrompts(2)

	// A bracketed multi-line paste is one message.
	ts.run("set-buffer", "-b", "p", "line one\nline two")
	ts.run("paste-buffer", "-p", "-b", "p", "-t", "hew")
	ts.keys("Enter")
	ts.waitText(`echo: "line one\nline two"`)
	ts.waitPrompts(3)

	// Streamed text, then Ctrl+C mid-turn: the turn stops, the prompt returns.
	ts.keys("slow", "Enter")
	ts.waitText("chunk 3")
	ts.keys("C-c")
	ts.waitText("Interrupted")
	ts.waitPrompts(4)

	// The session still works after the interruption.
	ts.keys("again", "Enter")
	ts.waitText(`echo: "again"`)
	ts.waitPrompts(5)

	// An approval question takes one key; Ctrl+C there stops the turn.
	ts.keys("ask", "Enter")
	ts.waitText("Allow run_shell?")
	ts.keys("C-c")
	ts.waitText(`approval=no why="the turn was interrupted"`)
	ts.waitScreen("the turn stopped", func(sc string) bool { return strings.Count(sc, "Interrupted") == 2 })
	ts.waitPrompts(6)
	ts.keys("ask", "Enter")
	ts.waitScreen("a second question", func(sc string) bool { return strings.Count(sc, "Allow run_shell?") == 2 })
	ts.keys("a")
	ts.waitText("approval=session")
	ts.waitPrompts(7)

	// Ctrl+R searches the history; Enter runs the match.
	ts.keys("C-r", "hel")
	ts.waitText("hel")
	ts.keys("Enter")
	ts.waitScreen("the history match to run again", func(sc string) bool { return strings.Count(sc, `echo: "helloX 世"`) == 2 })
	ts.waitPrompts(8)

	// Ctrl+C on a typed line discards it; at the empty prompt the first
	// gives a hint and the second exits.
	ts.keys("draft", "C-c")
	ts.waitPrompts(9)
	ts.keys("C-c")
	ts.waitText("Press Ctrl+C again to exit")
	ts.keys("C-c")
	if st := ts.waitExit(); st != "0" {
		t.Errorf("exit status = %s, want 0\n%s", st, ts.screen())
	}
	data, err := os.ReadFile(hist)
	if err != nil {
		t.Fatalf("history file: %v", err)
	}
	for _, want := range []string{"helloX 世", "again"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("history file lacks %q:\n%s", want, data)
		}
	}
}

var keyDelay = 20 * time.Millisecond
