//go:build unix

package execx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/callenv"
	"github.com/hew-dev/hew/internal/testenv"
)

func TestRunnerBasics(t *testing.T) {
	dir := t.TempDir()
	real, _ := filepath.EvalSymlinks(dir)
	cases := []struct {
		name, cmd string
		env       []string
		wantOut   []string
		wantCode  int
	}{
		{"stdout and stderr interleaved", "echo one; echo two >&2; echo three", nil, []string{"one\ntwo\nthree\n"}, 0},
		{"exit code", "echo failing; exit 3", nil, []string{"failing"}, 3},
		{"stdin is empty so cat returns", "cat; echo after-cat", nil, []string{"after-cat"}, 0},
		{"read gets EOF instead of hanging", `read x; echo "status=$? x=[$x]"`, nil, []string{"status=1 x=[]"}, 0},
		{"working dir", "pwd", nil, []string{real}, 0},
		{"environment", `echo "foo=$FOO"`, []string{"PATH=" + os.Getenv("PATH"), "FOO=bar"}, []string{"foo=bar"}, 0},
		{"killed by signal reports 128+N", "kill -9 $$", nil, nil, 137},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &Runner{}
			res, err := r.Run(context.Background(), callenv.ShellRequest{Command: tc.cmd, Dir: dir, Env: tc.env, TimeoutMS: 20000})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tc.wantCode {
				t.Errorf("exit code %d, want %d (output %q)", res.ExitCode, tc.wantCode, res.Output)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output %q lacks %q", res.Output, w)
				}
			}
			if res.TimedOut {
				t.Error("reported a timeout")
			}
		})
	}
}

// alive reports whether pid still exists (zombies count as gone only once reaped;
// the test process is not their parent, so poll a while).
func waitGone(t *testing.T, pid int) bool {
	t.Helper()
	for i := 0; i < 100; i++ {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func TestTimeoutKillsWholeGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	// The child ignores SIGTERM, so only the SIGKILL escalation can end it.
	cmd := `(trap '' TERM; sleep 60) & echo $! > ` + pidFile + `; echo started; wait`
	res, err := (&Runner{}).Run(context.Background(), callenv.ShellRequest{Command: cmd, Dir: dir, TimeoutMS: 300})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Fatalf("not reported as timed out: %+v", res)
	}
	if !strings.Contains(res.Output, "started") {
		t.Errorf("partial output lost: %q", res.Output)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !waitGone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("background child %d survived the timeout", pid)
	}
}

func TestBackgroundProcessDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	// The background sleep inherits the output pipe; a runner that waits for
	// EOF would hang until the 30 s timeout and report TimedOut.
	cmd := `sleep 30 & echo $! > ` + pidFile + `; echo server started`
	res, err := (&Runner{}).Run(context.Background(), callenv.ShellRequest{Command: cmd, Dir: dir, TimeoutMS: 30000})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	defer syscall.Kill(pid, syscall.SIGKILL)
	if res.TimedOut || res.ExitCode != 0 || !strings.Contains(res.Output, "server started") {
		t.Fatalf("got %+v", res)
	}
	if syscall.Kill(pid, 0) != nil {
		t.Error("background process was killed although the command succeeded")
	}
}

func TestCancelKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for i := 0; i < 200; i++ {
			if _, err := os.Stat(pidFile); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	res, err := (&Runner{}).Run(ctx, callenv.ShellRequest{Command: `sleep 60 & echo $! > ` + pidFile + `; wait`, Dir: dir, TimeoutMS: 60000})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled (res %+v)", err, res)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !waitGone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d survived cancellation", pid)
	}
}

func TestOutputCappedHeadAndTail(t *testing.T) {
	cmd := `echo BEGIN; i=0; while [ $i -lt 2000 ]; do echo "line $i xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; i=$((i+1)); done; echo END`
	res, err := (&Runner{}).Run(context.Background(), callenv.ShellRequest{Command: cmd, Dir: t.TempDir(), MaxOutput: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "BEGIN") || !strings.HasSuffix(res.Output, "END\n") {
		t.Errorf("head or tail lost: %.80q … %q", res.Output, res.Output[max(0, len(res.Output)-80):])
	}
	if res.Truncated < 80000 || !strings.Contains(res.Output, strconv.Itoa(res.Truncated)+" bytes of output cut") {
		t.Errorf("truncated=%d; marker missing in %d-byte output", res.Truncated, len(res.Output))
	}
	if len(res.Output) > 2200 {
		t.Errorf("output %d bytes, cap 2000", len(res.Output))
	}
}

func TestWrapRewritesArgv(t *testing.T) {
	var seen []string
	r := &Runner{Wrap: func(argv []string) ([]string, error) {
		seen = argv
		return append([]string{"env", "WRAPPED=yes"}, argv...), nil
	}, SandboxNote: "test sandbox"}
	res, err := r.Run(context.Background(), callenv.ShellRequest{Command: `echo "wrapped=$WRAPPED"`, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[1] != "-c" || seen[2] != `echo "wrapped=$WRAPPED"` {
		t.Errorf("wrap saw %q", seen)
	}
	if !strings.Contains(res.Output, "wrapped=yes") || res.SandboxNote != "test sandbox" {
		t.Errorf("got %+v", res)
	}
	r.Wrap = func([]string) ([]string, error) { return nil, errors.New("no sandbox") }
	if _, err := r.Run(context.Background(), callenv.ShellRequest{Command: "true", Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no sandbox") {
		t.Errorf("wrap error not surfaced: %v", err)
	}
}

func BenchmarkRunTrue(b *testing.B) {
	r := &Runner{}
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Run(context.Background(), callenv.ShellRequest{Command: "true", Dir: dir}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestFallsBackToShWithoutBash(t *testing.T) {
	sh := testenv.Tool(t, "sh")
	bin := t.TempDir()
	if err := os.Symlink(sh, filepath.Join(bin, "sh")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	res, err := (&Runner{}).Run(context.Background(), callenv.ShellRequest{Command: `echo "shell=$0"`, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "shell="+filepath.Join(bin, "sh")) {
		t.Errorf("output %q", res.Output)
	}
}
