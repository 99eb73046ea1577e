//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/testenv"
)

// tmuxServers numbers the tmux servers this test process starts.
var tmuxServers atomic.Int64

// tmuxSession drives a program in a detached tmux pane.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
}

func startTmux(t *testing.T, dir string, env []string, command string) *tmuxSession {
	t.Helper()
	testenv.Tool(t, "tmux")
	// A socket (a tmux server) per call, so tests in parallel never share one.
	ts := &tmuxSession{t: t, socket: fmt.Sprintf("hew-e2e-%d-%d", os.Getpid(), tmuxServers.Add(1)), name: "repl"}
	var exports strings.Builder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&exports, "%s=%s ", k, shellQuote(v))
	}
	script := fmt.Sprintf("cd %s && env %s %s; echo EXITED $?; sleep 60", shellQuote(dir), exports.String(), command)
	ts.tmux("new-session", "-d", "-s", ts.name, "-x", "120", "-y", "40", "bash", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", ts.socket, "kill-server").Run() })
	return ts
}

func (ts *tmuxSession) tmux(args ...string) string {
	ts.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", ts.socket}, args...)...).CombinedOutput()
	if err != nil {
		ts.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (ts *tmuxSession) send(keys ...string) {
	ts.tmux(append([]string{"send-keys", "-t", ts.name}, keys...)...)
}

func (ts *tmuxSession) screen() string {
	return ts.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", ts.name)
}

// waitFor polls the pane until cond holds (bounded, so a hang fails).
func (ts *tmuxSession) waitFor(what string, cond func(screen string) bool) string {
	ts.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := ts.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			ts.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// The REPL in a real terminal: a prompt streams its answer, Ctrl+C stops a
// turn mid-stream and the prompt comes back, the session stays valid, and
// /exit leaves with status 0.
func TestREPLUnderTmux(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	s.write("greeting.txt", "hello from tmux\n")
	story := strings.Repeat("Once upon a time there was a very long answer. ", 20)
	sc := s.scenario("repl.json", `{"turns": [
 {"text": "I'll read it.", "tool_calls": [{"name": "read_file", "input": {"file_path": "greeting.txt"}}]},
 {"text": "It says hello from tmux."},
 {"text": "`+story+`", "chunk_size": 4, "chunk_delay_ms": 150},
 {"text": "Back after the interruption."}
]}`)
	ts := startTmux(t, s.proj, append(s.env, "HEW_MOCK_SCRIPT="+sc), shellQuote(hewBin)+" --mock")
	prompts := func(screen string) int { return strings.Count(screen, "› ") }
	ts.waitFor("the prompt", func(sc string) bool { return prompts(sc) >= 1 })

	ts.send("read greeting.txt", "Enter")
	ts.waitFor("the answer", func(sc string) bool {
		return strings.Contains(sc, "It says hello from tmux.") && prompts(sc) >= 2
	})

	ts.send("tell me a story", "Enter")
	ts.waitFor("streamed text", func(sc string) bool { return strings.Contains(sc, "Once upon") })
	ts.send("C-c")
	screen := ts.waitFor("the prompt after Ctrl+C", func(sc string) bool { return prompts(sc) >= 3 })
	if strings.Contains(screen, "EXITED") {
		t.Fatalf("Ctrl+C mid-turn ended the REPL:\n%s", screen)
	}
	if strings.Contains(screen, strings.TrimSpace(story)) {
		t.Errorf("the whole story was printed; Ctrl+C did not stop the stream:\n%s", screen)
	}

	ts.send("go on", "Enter")
	ts.waitFor("the next turn", func(sc string) bool { return strings.Contains(sc, "Back after the interruption.") })

	ts.send("/exit", "Enter")
	screen = ts.waitFor("exit", func(sc string) bool { return strings.Contains(sc, "EXITED") })
	if !strings.Contains(screen, "EXITED 0") {
		t.Errorf("/exit did not exit 0:\n%s", screen)
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
	if last := loaded.Messages[len(loaded.Messages)-1]; !strings.Contains(last.Text(), "Back after the interruption.") {
		t.Errorf("last message = %+v", last)
	}
	if _, err := os.Stat(filepath.Join(s.home, "history")); err != nil {
		t.Errorf("no REPL history in HEW_HOME: %v", err)
	}
}
