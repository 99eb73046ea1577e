package repl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

// scenario for the real binary: a slowly streamed answer (interrupted), a
// read, then a write that asks for approval.
const tmuxScenario = `{"turns": [
 {"text": "Streaming slowly: one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen.", "chunk_size": 6, "chunk_delay_ms": 150},
 {"text": "I'll read it.", "tool_calls": [{"name": "read_file", "input": {"file_path": "greeting.txt"}}]},
 {"text": "## Answer\nIt says **hello**."},
 {"text": "Writing.", "tool_calls": [{"name": "write_file", "input": {"file_path": "new.txt", "content": "written by hew\n"}}]},
 {"text": "Wrote new.txt."}
]}`

// TestHewBinaryREPLUnderTmux drives the real hew binary (built from
// ./cmd/hew with the offline mock model) in a terminal: streamed text,
// Ctrl+C mid-turn, the prompt returns, the session goes on, an approval is
// answered with one key, /exit exits 0.
func TestHewBinaryREPLUnderTmux(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no tmux on windows")
	}
	for _, tool := range []string{"tmux", "go", "git"} {
		testenv.Tool(t, tool)
	}
	bin := buildHew(t)
	tmp := t.TempDir()
	proj, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "home")
	for _, d := range []string{proj, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	mustWrite(t, filepath.Join(proj, "greeting.txt"), "hello\n")
	sc := filepath.Join(tmp, "scenario.json")
	mustWrite(t, sc, tmuxScenario)

	ts := &tmuxSession{t: t, socket: fmt.Sprintf("hew-bin-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", ts.socket, "kill-server").Run() })
	ts.run("-f", "/dev/null", "new-session", "-d", "-s", "hew", "-x", "100", "-y", "50", "-c", proj,
		"env", "-i", "PATH="+os.Getenv("PATH"), "HOME="+tmp, "TERM=screen", "HEW_HOME="+home, "HEW_MOCK_SCRIPT="+sc,
		"GOTRACEBACK=all", "sh", "-c", `trap : INT; "$0" --mock 2>"$1"; echo $? > "$2"`, bin, filepath.Join(tmp, "stderr"), ts.exitFile(tmp))
	ts.run("set-option", "-t", "hew", "remain-on-exit", "on")
	ts.onHang = func() string {
		pid := strings.TrimSpace(ts.run("display-message", "-p", "-t", "hew", "#{pane_pid}"))
		_ = exec.Command("kill", "-QUIT", pid).Run()
		time.Sleep(time.Second)
		b, _ := os.ReadFile(filepath.Join(tmp, "stderr"))
		return "pid " + pid + " stderr:\n" + string(b)
	}
	ts.waitPrompts(1)

	ts.keys("tell me a story", "Enter")
	ts.waitText("three")
	ts.keys("C-c")
	ts.waitText("Interrupted")
	ts.waitPrompts(2)

	ts.keys("what does greeting.txt say", "Enter")
	ts.waitText("It says hello.")
	ts.waitText("read_file greeting.txt")
	ts.waitPrompts(3)

	ts.keys("write a file", "Enter")
	ts.waitText("Allow write_file?")
	ts.keys("y")
	ts.waitText("Wrote new.txt.")
	ts.waitPrompts(4)
	data, err := os.ReadFile(filepath.Join(proj, "new.txt"))
	if err != nil || string(data) != "written by hew\n" {
		t.Errorf("approved write: %q, %v", data, err)
	}

	ts.keys("/exit", "Enter")
	if st := ts.waitExit(); st != "0" {
		t.Errorf("exit status = %s, want 0\n%s", st, ts.screen())
	}
	ts.waitText("Resume this session with: hew --resume ")

	// hew -c redraws the end of the conversation before the prompt.
	rs := &tmuxSession{t: t, socket: ts.socket + "-c"}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", rs.socket, "kill-server").Run() })
	rs.run("-f", "/dev/null", "new-session", "-d", "-s", "hew", "-x", "100", "-y", "50", "-c", proj,
		"env", "-i", "PATH="+os.Getenv("PATH"), "HOME="+tmp, "TERM=screen", "HEW_HOME="+home, "HEW_MOCK_SCRIPT="+sc,
		"sh", "-c", `"$0" --mock -c 2>"$1.err"; echo $? > "$1"`, bin, filepath.Join(tmp, "exit-c"))
	rs.run("set-option", "-t", "hew", "remain-on-exit", "on")
	rs.exitPath = filepath.Join(tmp, "exit-c")
	rs.waitPrompts(1)
	sc2 := rs.screen()
	for _, want := range []string{"› write a file", "● write_file new.txt", "Wrote new.txt."} {
		if !strings.Contains(sc2, want) {
			t.Errorf("hew -c screen lacks %q:\n%s", want, sc2)
		}
	}
	rs.keys("C-d")
	rs.waitExit()
	sessions, _ := filepath.Glob(filepath.Join(home, "projects", "*", "sessions", "*.jsonl"))
	if len(sessions) != 1 {
		t.Errorf("session files = %v, want one", sessions)
	}
	if _, err := os.Stat(filepath.Join(home, "history")); err != nil {
		t.Errorf("history file: %v", err)
	}
}

var (
	buildOnce    sync.Once
	builtBin     string
	builtCleanup func() // run by TestMain
	buildErr     error
)

// buildHew builds ./cmd/hew once per test binary run.
func buildHew(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { builtBin, builtCleanup, buildErr = testenv.BuildHew(false) })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
