//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What the prompt and run_shell.md promise about run_shell: a timeout of
// 2 minutes by default and 10 at most, a timeout message that does not
// offer a background mode run_shell lacks, and no job control: a process
// started detached keeps running after the call, its output only in the
// file it was redirected to.
func TestRunShellPromisesInThePrompt(t *testing.T) {
	env := testEnv(t)
	sh := &recordingShell{}
	env.Shell = sh
	if _, err := call(t, env, RunShell{runShellSpec}, map[string]any{"command": "make", "timeout": 600000}); err != nil || sh.got.TimeoutMS != 600000 {
		t.Errorf("10-minute timeout: %d %v", sh.got.TimeoutMS, err)
	}
	if _, err := call(t, env, RunShell{runShellSpec}, map[string]any{"command": "make", "timeout": 600001}); err == nil {
		t.Error("a timeout above 10 minutes was accepted")
	}
	for _, d := range []string{"2 minutes", "120000", "600000", "no job control"} {
		if !strings.Contains(RunShell{runShellSpec}.Description(), d) && !strings.Contains(strings.ToLower(RunShell{runShellSpec}.Description()), d) {
			t.Errorf("run_shell.md does not say %q", d)
		}
	}

	env = testEnv(t)
	res, err := call(t, env, RunShell{runShellSpec}, map[string]any{"command": "sleep 5", "timeout": 100})
	if err != nil || !res.IsError || !strings.Contains(res.Content, "timed out after 100ms and was killed") || strings.Contains(res.Content, "background") {
		t.Errorf("timeout result %q %v", res.Content, err)
	}

	logf := filepath.Join(env.Root, "server.log")
	pidf := filepath.Join(env.Root, "pid")
	start := time.Now()
	res, err = call(t, env, RunShell{runShellSpec}, map[string]any{
		"command": `nohup sh -c 'echo early; sleep 1; echo later; sleep 30' > server.log 2>&1 & echo $! > pid; echo started`,
		"timeout": 20000,
	})
	if err != nil || res.IsError || !strings.Contains(res.Content, "started") {
		t.Fatalf("detached start: %q %v", res.Content, err)
	}
	b, _ := os.ReadFile(pidf)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatalf("no pid written: %q", b)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if time.Since(start) > 15*time.Second {
		t.Error("run_shell waited for the detached process")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readLog(logf), "later") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) != nil {
		t.Error("the detached process did not keep running after the call returned")
	}
	if !strings.Contains(readLog(logf), "later") {
		t.Errorf("the detached process's later output is not in its log file: %q", readLog(logf))
	}
	if strings.Contains(res.Content, "later") {
		t.Error("output written after the call returned reached the result")
	}
}

func readLog(p string) string { b, _ := os.ReadFile(p); return string(b) }
