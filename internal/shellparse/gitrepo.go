package shellparse

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A repository can carry its own configuration and hooks (.git/config,
// .git/hooks) — not through `git clone`, but in an unpacked archive, a
// copied working tree or a test fixture. Then a plain `git status` may run
// an fsmonitor program, `git diff` a textconv filter, `git commit` a hook.
// gitRepoRisk finds such settings in the project's repository, so those git
// commands ask instead of counting as known-safe.

// gitRunsHooks are the subcommands that run hooks or an editor.
var gitRunsHooks = setOf("commit", "merge", "rebase", "am", "checkout", "switch", "cherry-pick", "revert", "pull", "push", "stash", "restore", "reset", "gc", "worktree", "clone")

type repoRisk struct {
	always string // set for a setting that any git command may act on
	hooks  string // set for hooks (and an editor) run by gitRunsHooks
}

type repoRiskEntry struct {
	stamp time.Time
	risk  repoRisk
}

var repoRiskCache sync.Map // git dir → repoRiskEntry

// gitRepoRisk reports why git in root's repository may run a program the
// repository itself names ("" when nothing does).
func gitRepoRisk(root, sub string) string {
	if root == "" {
		return ""
	}
	gitDir := findGitDir(root)
	if gitDir == "" {
		return ""
	}
	cfg := filepath.Join(gitDir, "config")
	var stamp time.Time
	if fi, err := os.Stat(cfg); err == nil {
		stamp = fi.ModTime()
	}
	if fi, err := os.Stat(filepath.Join(gitDir, "hooks")); err == nil && fi.ModTime().After(stamp) {
		stamp = fi.ModTime()
	}
	var r repoRisk
	if e, ok := repoRiskCache.Load(gitDir); ok && e.(repoRiskEntry).stamp.Equal(stamp) && !stamp.IsZero() {
		r = e.(repoRiskEntry).risk
	} else {
		r = readRepoRisk(gitDir, root)
		repoRiskCache.Store(gitDir, repoRiskEntry{stamp, r})
	}
	if r.always != "" {
		return r.always
	}
	if gitRunsHooks[sub] {
		return r.hooks
	}
	return ""
}

// findGitDir is the repository directory of root or of its nearest parent:
// a .git directory, or the one a .git file points to (worktrees).
func findGitDir(root string) string {
	for dir := root; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return ""
			}
			if g, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
				g = strings.TrimSpace(g)
				if !filepath.IsAbs(g) {
					g = filepath.Join(dir, g)
				}
				// A worktree's config and hooks live in the common directory.
				if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
					common := strings.TrimSpace(string(c))
					if !filepath.IsAbs(common) {
						common = filepath.Join(g, common)
					}
					return filepath.Clean(common)
				}
				return g
			}
			return ""
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// readRepoRisk reads a repository's config (loosely: sections and keys)
// and hooks directory.
func readRepoRisk(gitDir, root string) repoRisk {
	var r repoRisk
	hooksDir := filepath.Join(gitDir, "hooks")
	if f, err := os.Open(filepath.Join(gitDir, "config")); err == nil {
		defer f.Close()
		section := ""
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
			if line[0] == '[' {
				name := strings.Trim(line, "[] \t")
				sub := ""
				if i := strings.IndexAny(name, " \t"); i >= 0 {
					name, sub = name[:i], strings.Trim(strings.TrimSpace(name[i:]), `"`)
				}
				section = strings.ToLower(name)
				if section == "includeif" || section == "include" {
					r.always = "the repository's .git/config includes other configuration files"
				}
				_ = sub
				continue
			}
			key, val, _ := strings.Cut(line, "=")
			key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
			full := section + "." + key
			switch {
			case full == "core.fsmonitor" && !isGitBool(val),
				full == "core.pager", section == "pager",
				full == "diff.external",
				section == "diff" && (key == "textconv" || key == "command"),
				section == "filter" && (key == "clean" || key == "smudge" || key == "process"),
				full == "core.sshcommand", full == "core.askpass", full == "core.gitproxy",
				full == "gpg.program", section == "gpg" && key == "program":
				if r.always == "" {
					r.always = "the repository's .git/config sets " + full + ", which makes git run a program"
				}
			case full == "core.hookspath":
				p := strings.Trim(val, `"`)
				if !filepath.IsAbs(p) {
					p = filepath.Join(root, p)
				}
				hooksDir = p
			case full == "core.editor", section == "sequence" && key == "editor":
				if r.hooks == "" {
					r.hooks = "the repository's .git/config sets " + full + ", which git runs"
				}
			}
		}
	}
	if r.hooks == "" {
		if entries, err := os.ReadDir(hooksDir); err == nil {
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".sample") || e.IsDir() {
					continue
				}
				if fi, err := e.Info(); err == nil && fi.Mode()&0o111 != 0 {
					r.hooks = "the repository has a " + e.Name() + " hook, which git runs"
					break
				}
			}
		}
	}
	return r
}

func isGitBool(v string) bool {
	switch strings.ToLower(strings.Trim(v, `"`)) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}
