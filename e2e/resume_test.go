//go:build unix

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/session"
)

// A hew process killed with SIGKILL in the middle of a shell command leaves
// a session that `hew -c` resumes: the dangling call is answered
// "interrupted", the history stays valid and the next turn completes.
func TestKillMidToolThenContinue(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	pidFile := filepath.Join(filepath.Dir(s.proj), "shell.pid")
	slow := s.scenario("slow.json", `{"turns": [
 {"text": "Running the slow step.", "tool_calls": [{"name": "run_shell", "input": {"command": "echo $$ > `+pidFile+`; sleep 60"}}]},
 {"text": "not reached"}
]}`)
	cmd := s.cmd([]string{"HEW_MOCK_SCRIPT=" + slow}, "-p", "--mock", "--yolo", "--output-format", "stream-json", "do the slow thing")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()

	// Wait until the shell command runs, i.e. the tool call is under way.
	shellPID := 0
	deadline := time.Now().Add(60 * time.Second)
	for shellPID == 0 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("the shell command never started; hew printed:\n%s", out.String())
		}
		select {
		case <-done:
			t.Fatalf("hew exited before the kill:\n%s", out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if b, err := os.ReadFile(pidFile); err == nil {
			shellPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	// The orphaned shell keeps sleeping in its own process group; end it.
	_ = syscall.Kill(-shellPID, syscall.SIGKILL)
	_ = syscall.Kill(shellPID, syscall.SIGKILL)

	files := s.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("session files after the kill: %v", files)
	}
	loaded, err := session.Load(files[0])
	if err != nil {
		t.Fatalf("the killed session does not load: %v", err)
	}
	if loaded.Repaired != 1 {
		t.Errorf("repaired %d dangling calls, want the 1 killed run_shell", loaded.Repaired)
	}
	checkPaired(t, loaded.Messages)

	next := s.scenario("next.json", `{"turns": [{"text": "Picked up where we left off."}]}`)
	r := s.run([]string{"HEW_MOCK_SCRIPT=" + next}, "-c", "-p", "--mock", "--output-format", "json", "carry on")
	if r.code != 0 || !strings.Contains(r.stdout, `"stop_reason":"completed"`) || !strings.Contains(r.stdout, "Picked up where we left off.") {
		t.Fatalf("hew -c: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, loaded.Meta.ID) {
		t.Errorf("the continued run has another session id than %s:\n%s", loaded.Meta.ID, r.stdout)
	}
	if got := s.sessionFiles(); len(got) != 1 {
		t.Errorf("-c made a new session file: %v", got)
	}
	after, err := session.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	checkPaired(t, after.Messages)
	if len(after.Messages) <= len(loaded.Messages) {
		t.Errorf("the continued turn was not appended: %d messages before, %d after", len(loaded.Messages), len(after.Messages))
	}
	if last := after.Messages[len(after.Messages)-1]; last.Role != llm.RoleAssistant || !strings.Contains(last.Text(), "Picked up") {
		t.Errorf("last message = %+v", last)
	}
}

// -c never picks up another directory's session.
func TestContinueIsPerDirectory(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	if r := s.run(nil, "--mock", "-p", "list files"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	other := filepath.Join(filepath.Dir(s.proj), "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := s.cmd(nil, "-c", "--mock", "-p", "list files")
	cmd.Dir = other
	out, err := cmd.CombinedOutput()
	if err == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "no session") {
		t.Errorf("-c in another directory: err %v\n%s", err, out)
	}
}

// checkPaired asserts every tool_use has exactly one tool_result in the
// next message.
func checkPaired(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		uses := m.ToolUses()
		if len(uses) == 0 {
			continue
		}
		if i+1 >= len(msgs) {
			t.Errorf("message %d ends the history with %d unanswered tool calls", i, len(uses))
			continue
		}
		got := map[string]int{}
		for _, b := range msgs[i+1].Content {
			if b.Type == llm.BlockToolResult {
				got[b.ID]++
			}
		}
		for _, u := range uses {
			if got[u.ID] != 1 {
				t.Errorf("tool call %s (%s) has %d results", u.ID, u.Name, got[u.ID])
			}
		}
	}
}

// Ctrl+C (SIGINT) in a headless run stops the turn: the result says
// aborted, the exit status is 130 and the session stays loadable.
func TestInterruptHeadless(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, false)
	sc := s.scenario("slow-text.json", `{"turns": [{"text": "`+strings.Repeat("slowly ", 200)+`", "chunk_size": 7, "chunk_delay_ms": 50}]}`)
	cmd := s.cmd([]string{"HEW_MOCK_SCRIPT=" + sc}, "-p", "--mock", "--output-format", "stream-json", "talk slowly")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	lines := make(chan string, 1000)
	go func() {
		defer close(lines)
		buf := make([]byte, 1<<16)
		var pending string
		for {
			n, err := pr.Read(buf)
			pending += string(buf[:n])
			for {
				i := strings.IndexByte(pending, '\n')
				if i < 0 {
					break
				}
				lines <- pending[:i]
				pending = pending[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	var all []string
	sent := false
	for l := range lines {
		all = append(all, l)
		if !sent && strings.Contains(l, `"type":"text"`) {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			sent = true
		}
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d (%v), want 130\n%s\n%s", code, err, strings.Join(all, "\n"), errb.String())
	}
	if last := all[len(all)-1]; !strings.Contains(last, `"type":"result"`) || !strings.Contains(last, `"stop_reason":"aborted"`) {
		t.Errorf("last line = %s", last)
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
}
