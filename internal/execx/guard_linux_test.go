package execx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/callenv"
	"github.com/hew-dev/hew/internal/testenv"
)

// TestMain gives the test binary hew's two personalities used here: the
// group guard, and a stand-in for hew that runs one command and can be
// killed with kill -9 mid-way.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == GuardArg {
		os.Exit(GuardMain(os.Args[2:]))
	}
	if cmd := os.Getenv("HEW_TEST_FAKE_HEW"); cmd != "" {
		r := &Runner{}
		if os.Getenv("HEW_TEST_GUARD") == "1" {
			r.Guard = DefaultGuard()
		}
		r.Track = os.Getenv("HEW_TEST_TRACK")
		psOnly = os.Getenv("HEW_TEST_PS_ONLY") == "1"
		_, _ = r.Run(context.Background(), callenv.ShellRequest{Command: cmd, TimeoutMS: 60000})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// kill -9 of hew kills its shell's children too (issue 12.7): without the
// guard, a parent-death signal would reach only the shell.
func TestKill9OfHewKillsShellChildren(t *testing.T) {
	testenv.Tool(t, "bash")
	testenv.Tool(t, "sleep")
	for _, guarded := range []bool{true, false} {
		pidFile := filepath.Join(t.TempDir(), "pid")
		fake := exec.Command(os.Args[0], "-test.run=^$")
		guard := "0"
		if guarded {
			guard = "1"
		}
		fake.Env = append(os.Environ(), "HEW_TEST_FAKE_HEW=sleep 300 & echo $! > "+pidFile+"; wait", "HEW_TEST_GUARD="+guard)
		if err := fake.Start(); err != nil {
			t.Fatal(err)
		}
		var child int
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				break
			}
		}
		if child == 0 {
			fake.Process.Kill()
			t.Fatal("the command never started")
		}
		_ = fake.Process.Signal(syscall.SIGKILL)
		_ = fake.Wait()
		gone := false
		wait := 5 * time.Second
		if !guarded {
			wait = time.Second
		}
		for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if syscall.Kill(child, 0) != nil || isZombie(child) {
				gone = true
				break
			}
		}
		if guarded && !gone {
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the shell's child %d outlived a kill -9 of hew", child)
		}
		if !guarded {
			// The control: without the guard the child survives (the old
			// behaviour), so the guarded check above can fail.
			if gone {
				t.Errorf("control: unguarded child %d died too, so this test proves nothing", child)
			}
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func TestGuardArgs(t *testing.T) {
	for _, bad := range [][]string{{}, {"--", "x"}, {"--parent"}, {"--parent", "x", "--", "y"}, {"--parent", "3"}, {"--parent", "3", "--"}, {"--bogus"}} {
		if _, _, err := parseGuardArgs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	p, argv, err := parseGuardArgs([]string{"--parent", "42", "--", "bash", "-c", "x"})
	if err != nil || p != 42 || len(argv) != 3 {
		t.Errorf("got %d %q %v", p, argv, err)
	}
}

// The guard keeps exit codes and lets hew's graceful stop through.
func TestGuardedRunKeepsExitCodeAndTimeout(t *testing.T) {
	testenv.Tool(t, "bash")
	r := &Runner{Guard: DefaultGuard()}
	res, err := r.Run(context.Background(), callenv.ShellRequest{Command: "echo hi; exit 3", TimeoutMS: 10000})
	if err != nil || res.ExitCode != 3 || !strings.Contains(res.Output, "hi") {
		t.Fatalf("got %+v %v", res, err)
	}
	start := time.Now()
	res, err = r.Run(context.Background(), callenv.ShellRequest{Command: "sleep 30", TimeoutMS: 200})
	if err != nil || !res.TimedOut || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout: %+v %v after %s", res, err, time.Since(start))
	}
}

// Without the guard (macOS, BSD) the record of a running command lets the
// next hew reap what a killed one left running (issue 12.7, "elsewhere").
// Exercised here on Linux with the guard off.
func TestReapOrphansAfterKill9(t *testing.T) {
	testenv.Tool(t, "bash")
	testenv.Tool(t, "ps")
	for _, ps := range []bool{false, true} {
		name := "kernel"
		if ps {
			name = "ps" // as on macOS and BSD
		}
		t.Run(name, func(t *testing.T) {
			psOnly = ps
			defer func() { psOnly = false }()
			reapAfterKill9(t, ps)
		})
	}
}

// reapAfterKill9 is TestReapOrphansAfterKill9 with start times read by ps
// or from the kernel, in the killed fake hew and in the reaping one alike.
func reapAfterKill9(t *testing.T, ps bool) {
	track := filepath.Join(t.TempDir(), "procs")
	pidFile := filepath.Join(t.TempDir(), "pid")
	fake := exec.Command(os.Args[0], "-test.run=^$")
	only := "0"
	if ps {
		only = "1"
	}
	fake.Env = append(os.Environ(), "HEW_TEST_FAKE_HEW=sleep 300 & echo $! > "+pidFile+"; wait", "HEW_TEST_TRACK="+track, "HEW_TEST_PS_ONLY="+only)
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && child == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	if child == 0 {
		fake.Process.Kill()
		t.Fatal("the command never started")
	}
	defer syscall.Kill(child, syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ents, _ := os.ReadDir(track); len(ents) == 1 { // recorded (after a ps call) before the kill
			break
		}
	}
	_ = fake.Process.Signal(syscall.SIGKILL)
	_ = fake.Wait()
	time.Sleep(100 * time.Millisecond)
	if syscall.Kill(child, 0) != nil {
		t.Fatal("the child died without reaping: nothing to test")
	}
	if ents, _ := os.ReadDir(track); len(ents) != 1 {
		t.Fatalf("%d records of running commands, want 1", len(ents))
	}
	if n := ReapOrphans(track); n != 1 {
		t.Fatalf("reaped %d groups, want 1", n)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(child, 0) != nil || isZombie(child) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d still runs after the reap", child)
		}
	}
	if ents, _ := os.ReadDir(track); len(ents) != 0 {
		t.Errorf("records left: %d", len(ents))
	}
	// A live hew's records are left alone.
	if err := os.WriteFile(filepath.Join(track, "12345"), []byte(strconv.Itoa(os.Getpid())+"\nMon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := ReapOrphans(track); n != 0 {
		t.Fatalf("reaped a live hew's group")
	}
}

// Behind the guard too, a running command's group is recorded (with the
// leader's start time from /proc, no ps) and the record goes when it ends.
func TestGuardedCommandRecorded(t *testing.T) {
	testenv.Tool(t, "bash")
	track := filepath.Join(t.TempDir(), "procs")
	if TrackDir(t.TempDir()) == "" {
		t.Fatal("TrackDir is empty on Linux")
	}
	r := &Runner{Guard: []string{os.Args[0], GuardArg, "--parent", strconv.Itoa(os.Getpid())}, Track: track}
	res, err := r.Run(context.Background(), callenv.ShellRequest{Command: "for i in $(seq 200); do ls " + track + "/* >/dev/null 2>&1 && break; sleep 0.02; done; ls " + track + "; cat " + track + "/*", TimeoutMS: 10000})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, res)
	}
	lines := strings.Split(strings.TrimSpace(res.Output), "\n")
	if len(lines) != 3 || lines[1] != strconv.Itoa(os.Getpid()) || !strings.HasPrefix(lines[2], "ticks ") {
		t.Fatalf("record while running: %q", res.Output)
	}
	if got, ok := kernelStartTime(os.Getpid()); !ok || got != startTime(os.Getpid()) {
		t.Fatalf("start time %q, %v", got, ok)
	}
	if HasOrphanRecords(track) {
		t.Error("the record outlived the command")
	}
}

// The ps reading macOS and BSD use identifies a process the same way every
// time and tells a gone one ("") — run here where ps exists.
func TestPSStartTime(t *testing.T) {
	testenv.Tool(t, "ps")
	a, b := psStartTime(os.Getpid()), psStartTime(os.Getpid())
	if a == "" || a != b {
		t.Fatalf("ps start time %q then %q", a, b)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if got := psStartTime(cmd.Process.Pid); got != "" {
		t.Errorf("a finished process has start time %q", got)
	}
}
