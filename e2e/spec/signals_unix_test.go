//go:build unix

package spec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

// SIGINT during a run: the run ends with stop_reason aborted and exit 130,
// the running shell command is killed, and the result line is still written.
func TestInterruptExit130(t *testing.T) {
	testenv.Tool(t, "bash")
	w := newWorld(t)
	sc := `{"turns":[{"text":"waiting","tool_calls":[{"name":"run_shell","input":{"command":"echo $$ > shell.pid; exec sleep 30"}}]},{"text":"done"}]}`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, hewBin, "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	cmd.Dir = w.proj
	cmd.Env = append(append([]string{}, w.env...), w.mockEnv(sc)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	var lines []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before the tool started: %v\n%s\n%s", err, strings.Join(lines, ""), stderr.String())
		}
		lines = append(lines, line)
		var e event
		_ = json.Unmarshal([]byte(line), &e)
		if e.str("type") == "tool_use" {
			break
		}
	}
	// Wait until the command runs (it writes its pid first).
	for i := 0; ; i++ {
		if b, err := os.ReadFile(w.proj + "/shell.pid"); err == nil && strings.HasSuffix(string(b), "\n") {
			break
		}
		if i == 300 {
			t.Fatalf("the shell command never started\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(br)
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	out := strings.Join(lines, "") + string(rest)
	r := run{stdout: out, stderr: stderr.String(), code: code}
	if code != 130 {
		t.Fatalf("exit %d after SIGINT, want 130\n%s", code, r)
	}
	res := lastResult(t, r)
	if res.str("stop_reason") != "aborted" {
		t.Fatalf("stop_reason %q, want aborted\n%s", res.str("stop_reason"), r)
	}
	// Pairing: the interrupted call still got its result.
	if len(ofType(events(t, r), "tool_result")) != 1 {
		t.Fatalf("the interrupted tool call has no tool_result\n%s", r)
	}
	// The shell (exec'd into sleep) must be gone: killed, not orphaned.
	pid, err := strconv.Atoi(strings.TrimSpace(w.read("shell.pid")))
	if err != nil {
		t.Fatalf("shell.pid: %v", err)
	}
	for i := 0; ; i++ {
		if !alive(pid) {
			break
		}
		if i == 100 {
			t.Fatalf("the shell command (pid %d) still runs after hew exited on SIGINT", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// alive reports whether pid names a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil && !procfs()
	}
	// Field 3 of /proc/PID/stat is the state; Z is a zombie.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func procfs() bool { _, err := os.Stat("/proc/self/stat"); return err == nil }

// kill -9 mid-tool: the session file still resumes, and the dangling tool
// call is answered before the history is sent again (SPEC section 3).
func TestResumeAfterKill9(t *testing.T) {
	testenv.Tool(t, "bash")
	w := newWorld(t)
	sc := `{"turns":[{"text":"marker-before-kill","tool_calls":[{"name":"run_shell","input":{"command":"echo $$ > shell.pid; exec sleep 30"}}]},{"text":"never"}]}`
	cmd := exec.Command(hewBin, "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	cmd.Dir = w.proj
	cmd.Env = append(append([]string{}, w.env...), w.mockEnv(sc)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if b, err := os.ReadFile(filepath.Join(w.proj, "shell.pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			break
		}
		if i == 300 {
			_ = cmd.Process.Kill()
			t.Fatal("the shell command never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if pid, err := strconv.Atoi(strings.TrimSpace(w.read("shell.pid"))); err == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL) // the orphan of a kill -9 is not hew's to reap
	}
	ms := w.startMock("")
	r := w.hewEnv(ms.anthropicEnv(), "-p", "-c", "--output-format", "json", "after the kill")
	if r.code != 0 {
		t.Fatalf("resume after kill -9: exit %d\n%s", r.code, r)
	}
	var msgs []map[string]any
	b, _ := json.Marshal(ms.requests()[0].body["messages"])
	_ = json.Unmarshal(b, &msgs)
	if !strings.Contains(string(b), "marker-before-kill") {
		t.Fatalf("the killed run's history was not resumed: %s", b)
	}
	// Every tool_use has a tool_result in the next message.
	uses, results := map[string]bool{}, map[string]bool{}
	for _, m := range msgs {
		content, _ := m["content"].([]any)
		for _, c := range content {
			blk, _ := c.(map[string]any)
			switch blk["type"] {
			case "tool_use":
				uses[blk["id"].(string)] = true
			case "tool_result":
				results[blk["tool_use_id"].(string)] = true
			}
		}
	}
	if len(uses) == 0 {
		t.Fatalf("the dangling tool call vanished from the history: %s", b)
	}
	for id := range uses {
		if !results[id] {
			t.Errorf("tool_use %s has no tool_result after resume", id)
		}
	}
}
