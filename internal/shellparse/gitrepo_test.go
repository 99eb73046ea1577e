package shellparse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository that brings its own configuration or hooks makes the git
// commands they act on ask; a plain repository keeps them known-safe.
func TestGitRepositoryThatRunsPrograms(t *testing.T) {
	cases := []struct {
		name, config, hook string
		safe, unsafe       []string
	}{
		{name: "plain", config: "[core]\n\tbare = false\n", safe: []string{"git status", "git diff", "git log -p", "git commit -m x"}},
		{name: "fsmonitor program", config: "[core]\n\tfsmonitor = ./.evil.sh\n", unsafe: []string{"git status", "git diff"}},
		{name: "fsmonitor builtin", config: "[core]\n\tfsmonitor = true\n", safe: []string{"git status"}},
		{name: "textconv", config: "[diff \"bin\"]\n\ttextconv = ./conv.sh\n", unsafe: []string{"git diff", "git log -p", "git show"}},
		{name: "filter", config: "[filter \"x\"]\n\tclean = ./clean.sh\n", unsafe: []string{"git status", "git add -A"}},
		{name: "pager", config: "[core]\n\tpager = ./p.sh\n", unsafe: []string{"git log"}},
		{name: "include", config: "[include]\n\tpath = ../other\n", unsafe: []string{"git status"}},
		{name: "hook", config: "", hook: "pre-commit", safe: []string{"git status", "git diff"}, unsafe: []string{"git commit -m x", "git switch -c b"}},
		{name: "sample hook only", config: "", hook: "pre-commit.sample", safe: []string{"git commit -m x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			git := filepath.Join(root, ".git")
			os.MkdirAll(filepath.Join(git, "hooks"), 0o755)
			os.WriteFile(filepath.Join(git, "config"), []byte(c.config), 0o644)
			if c.hook != "" {
				os.WriteFile(filepath.Join(git, "hooks", c.hook), []byte("#!/bin/sh\n"), 0o755)
			}
			opts := Options{Root: root, Home: t.TempDir()}
			for _, cmd := range c.safe {
				if a := Analyze(cmd, opts); !a.KnownSafe(true) {
					t.Errorf("%q should stay known-safe: %s", cmd, a.Why(true))
				}
			}
			for _, cmd := range c.unsafe {
				a := Analyze(cmd, opts)
				if a.KnownSafe(true) {
					t.Errorf("%q is known-safe although the repository makes git run a program", cmd)
				} else if !strings.Contains(a.Why(true), "repository") {
					t.Errorf("%q: reason %q does not name the repository", cmd, a.Why(true))
				}
			}
		})
	}
}

// In a linked worktree the configuration is the common directory's.
func TestGitWorktreeUsesCommonConfig(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	common := filepath.Join(base, "main", ".git")
	wt := filepath.Join(common, "worktrees", "wt")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(common, "config"), []byte("[core]\n\tfsmonitor = /tmp/evil\n"), 0o644)
	os.WriteFile(filepath.Join(wt, "commondir"), []byte("../..\n"), 0o644)
	root := filepath.Join(base, "wt")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: "+wt+"\n"), 0o644)
	if a := Analyze("git status", Options{Root: root, Home: t.TempDir()}); a.KnownSafe(true) {
		t.Fatal("git status in a worktree whose common config runs an fsmonitor program is known-safe")
	}
}
