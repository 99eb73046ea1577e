// Package testenv lets tests that need an outside program (git, bash,
// tmux, ripgrep, node and the npm MCP servers) say so in one place. Locally
// a missing program skips the test with the reason; under CI, whose script
// installs all of them, it fails the test, so a broken install step can
// never turn into a green run that tested nothing.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// InCI reports whether the tests run under CI (CI set, as CI runners do).
func InCI() bool { return os.Getenv("CI") != "" }

// Missing ends the test for want of what: a failure under CI, a skip elsewhere.
func Missing(t testing.TB, what string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s, but CI installs it (make deps): the test environment is broken", what)
	}
	t.Skip(what)
}

// Tool returns the path of program name, or ends the test via Missing.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" not on PATH")
	}
	return p
}

// File ends the test via Missing when path does not exist; hint says how to get it.
func File(t testing.TB, path, hint string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, path+" not found ("+hint+")")
	}
}

// BuildHew compiles cmd/hew into a new temporary directory, with the race
// detector when race is set. cleanup removes the directory.
func BuildHew(race bool) (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "hew-test-bin-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	bin = filepath.Join(dir, "hew")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, "github.com/hew-dev/hew/cmd/hew")...).CombinedOutput()
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building cmd/hew: %w\n%s", err, out)
	}
	return bin, cleanup, nil
}

// MainWithHew is the body of a TestMain for tests that drive the binary: it
// builds hew into *bin once, runs the tests and removes the binary.
func MainWithHew(m *testing.M, bin *string, race bool) int {
	b, cleanup, err := BuildHew(race)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	*bin = b
	return m.Run()
}

// Git runs git in dir with a fixed identity (commits work on a machine
// without one) and returns its output; a failure ends the test with it.
// It ends the test via Missing when git is not installed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(Tool(t, "git"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// GitRepo makes dir a git repository on branch main whose first commit
// holds every file already in it.
func GitRepo(t testing.TB, dir string) {
	t.Helper()
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "start")
}
