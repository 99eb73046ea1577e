package spec

import (
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

// procStat is /proc/PID/stat's state and process group ("" when gone).
func procStat(pid int) (state string, pgrp int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
	pgrp, _ = strconv.Atoi(f[2])
	return f[0], pgrp
}

// Issue 12.7: a hew killed mid-command whose children survived (here the
// guard that takes them along on Linux is killed with it, as `killall -9
// hew` or the OOM killer would; on macOS and BSD there is no guard) has
// them stopped by the next hew in the project, which tells the user.
func TestOrphanedCommandReapedOnResume(t *testing.T) {
	testenv.File(t, "/proc/self/stat", "Linux /proc")
	testenv.Tool(t, "bash")
	testenv.Tool(t, "sleep")
	for _, sandbox := range []string{"--no-sandbox", "--sandbox-default"} {
		t.Run(sandbox, func(t *testing.T) { orphanReaped(t, sandbox) })
	}
}

// orphanReaped is the test with the first hew's sandbox flag (the
// guard leads the sandbox helpers and the shell when the sandbox is on).
func orphanReaped(t *testing.T, sandbox string) {
	w := newWorld(t)
	pidFile := filepath.Join(w.proj, "child.pid")
	sc := `{"turns":[{"tool_calls":[{"name":"run_shell","input":{"command":"sleep 300 & echo $! > child.pid; wait","timeout":600000}}]},{"text":"done"}]}`
	args := []string{"-p", "--mock", "--yolo", "start the server"}
	if sandbox == "--no-sandbox" {
		args = append([]string{sandbox}, args...)
	}
	cmd := exec.Command(hewBin, args...)
	cmd.Dir, cmd.Env = w.proj, append(append([]string(nil), w.env...), w.mockEnv(sc)...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var child int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && child == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	if child == 0 {
		t.Fatalf("the command never started:\n%s", out.String())
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	_, group := procStat(child)
	if group <= 1 || group == syscall.Getpgrp() {
		t.Fatalf("sleep %d is in group %d", child, group)
	}
	// Kill the group's leader (the guard) and hew, both with SIGKILL.
	_ = syscall.Kill(group, syscall.SIGKILL)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	time.Sleep(200 * time.Millisecond)
	if st, _ := procStat(child); st == "" || st == "Z" {
		t.Fatal("sleep died with hew: nothing left to reap")
	}
	r := w.hewEnv(w.mockEnv(`{"turns":[{"text":"resumed"}]}`), "-c", "-p", "--mock", "--no-sandbox", "go on")
	if r.code != 0 {
		t.Fatalf("resume: %s", r)
	}
	if !strings.Contains(r.stderr, "stopped 1 command that an earlier hew left running") {
		t.Errorf("the user is not told about the reaped command:\n%s", r.stderr)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, _ := procStat(child); st == "" || st == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sleep %d still runs after the resume", child)
		}
	}
	// Nothing is left to reap: the next start says nothing.
	r = w.hewEnv(w.mockEnv(`{"turns":[{"text":"again"}]}`), "-p", "--mock", "--no-sandbox", "hi")
	if strings.Contains(r.stderr, "left running") {
		t.Errorf("reaped twice:\n%s", r.stderr)
	}
}
