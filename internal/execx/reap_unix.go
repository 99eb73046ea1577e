//go:build unix

package execx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// track records the process group led by pid in dir and returns the
// function that removes the record when the command is over. A record
// left behind means hew died mid-command (kill -9); the next hew reaps it.
func track(dir string, pid int) func() {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}
	}
	p := filepath.Join(dir, strconv.Itoa(pid))
	rec := strconv.Itoa(os.Getpid()) + "\n" + startTime(pid) + "\n"
	if err := os.WriteFile(p, []byte(rec), 0o600); err != nil {
		return func() {}
	}
	return func() { _ = os.Remove(p) }
}

// startTime identifies a process beyond its pid (which the system reuses):
// its start time from the kernel (Linux: /proc, no process spawned) or as
// ps reports it, or "" when neither can tell.
func startTime(pid int) string {
	if t, ok := kernelStartTime(pid); ok && !psOnly {
		return t
	}
	return psStartTime(pid)
}

// psOnly makes startTime ask ps even where the kernel could tell, so the
// tests on Linux run the reap exactly as macOS and BSD do.
var psOnly = false

// psStartTime is pid's start time as ps prints it (macOS, BSD), or "".
func psStartTime(pid int) string {
	out, err := exec.Command("ps", "-o", "lstart=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ReapOrphans kills the process groups recorded in dir whose hew is gone:
// shell children left running by a hew that was killed mid-command, where
// no parent-death signal could take them along (macOS, BSD), or where the
// guard that would have was killed too (Linux: `killall -9 hew`, the OOM
// killer). A group whose leader is no longer the process
// that was recorded (its start time differs: the pid was reused) is left
// alone, and so is one recorded without a start time. It returns how many
// groups it killed.
func ReapOrphans(dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	killed := 0
	for _, e := range ents {
		pgid, err := strconv.Atoi(e.Name())
		if err != nil || pgid <= 1 {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		lines := strings.SplitN(string(b), "\n", 3)
		owner, _ := strconv.Atoi(lines[0])
		if owner > 0 && owner != os.Getpid() && syscall.Kill(owner, 0) == nil {
			continue // its hew still runs (or the pid was reused: leave it be)
		}
		want := ""
		if len(lines) > 1 {
			want = lines[1]
		}
		if want == "" {
			_ = os.Remove(p) // recorded without an identity: never guess
			continue
		}
		// A group id is not reused while the group has members, so a live
		// group whose leader is gone is still ours; a live leader must be
		// the process recorded (else its pid, and so the group, is new).
		if now := startTime(pgid); syscall.Kill(-pgid, 0) == nil && (now == "" || now == want) {
			if syscall.Kill(-pgid, syscall.SIGKILL) == nil {
				killed++
			}
		}
		_ = os.Remove(p)
	}
	return killed
}

// TrackDir is where a project's running shell commands are recorded ("" for
// no state directory). Linux records them too, behind the guard: a guard
// killed along with hew leaves its group to the next hew's reap.
func TrackDir(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, "procs")
}

// HasOrphanRecords reports whether dir holds records of commands, so a
// start-up can skip the reap (and its ps calls) in the common case.
func HasOrphanRecords(dir string) bool {
	ents, err := os.ReadDir(dir)
	return err == nil && len(ents) > 0
}
