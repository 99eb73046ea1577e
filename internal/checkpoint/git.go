package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// gitBackend snapshots the whole work tree into a separate git directory
// (StateDir/checkpoints/git) with one index per session, so it sees every
// change, whoever made it, honours .gitignore and only re-hashes files whose
// stat data changed. It runs git with the user's global and system config
// switched off: no hooks, signing or fsmonitor of theirs run for the store.
type gitBackend struct {
	s *Store
	// noBulk turns the bulk import of a first snapshot off (tests compare).
	noBulk bool
}

func (g *gitBackend) kind() string { return "git" }

func (g *gitBackend) gitDir() string { return filepath.Join(g.s.dir, "git") }

// run runs git over the project's work tree with the given index.
func (g *gitBackend) run(index string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	full := append([]string{
		"-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.quotepath=false",
		"-c", "gc.auto=0", "-c", "core.fsmonitor=false", "-c", "commit.gpgsign=false",
		"-c", "core.hooksPath=" + os.DevNull,
	}, args...)
	cmd := exec.CommandContext(ctx, g.s.opts.Git, full...)
	cmd.Dir = g.s.opts.Root
	cmd.Env = g.env(index)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.Bytes(), fmt.Errorf("checkpoint: git %s: %s", args[0], firstLine(msg))
	}
	return stdout.Bytes(), nil
}

func (g *gitBackend) env(index string) []string {
	out := make([]string, 0, len(g.s.opts.Env)+8)
	for _, kv := range g.s.opts.Env {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out,
		"GIT_DIR="+g.gitDir(),
		"GIT_WORK_TREE="+g.s.opts.Root,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=hew", "GIT_AUTHOR_EMAIL=hew@localhost",
		"GIT_COMMITTER_NAME=hew", "GIT_COMMITTER_EMAIL=hew@localhost",
	)
	if index != "" {
		out = append(out, "GIT_INDEX_FILE="+index)
	}
	return out
}

// init creates the shadow git directory once.
func (g *gitBackend) init() error {
	if _, err := os.Stat(filepath.Join(g.gitDir(), "HEAD")); err == nil {
		return g.syncExcludes()
	}
	if err := os.MkdirAll(g.s.dir, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	// A temporary name and a rename, so two processes racing here end
	// with one complete store.
	tmp, err := os.MkdirTemp(g.s.dir, ".git-init-*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	cmd := exec.Command(g.s.opts.Git, "init", "-q", "--bare", tmp)
	cmd.Env = g.env("")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "GIT_DIR=") || strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			cmd.Env[i] = "HEW_UNSET=1"
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("checkpoint: git init: %s", firstLine(string(out)))
	}
	// A bare directory with an explicit work tree: core.bare must be off
	// for add/status to accept GIT_WORK_TREE.
	cfg := filepath.Join(tmp, "config")
	data, _ := os.ReadFile(cfg)
	data = bytes.Replace(data, []byte("bare = true"), []byte("bare = false"), 1)
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, g.gitDir()); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(filepath.Join(g.gitDir(), "HEAD")); serr != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	return g.syncExcludes()
}

// syncExcludes copies the project's own .git/info/exclude, so what the user
// excludes locally stays out of the snapshots as well.
func (g *gitBackend) syncExcludes() error {
	want := []byte("# hew: the project's .git/info/exclude follows\n")
	// A state directory inside the project (HEW_HOME there) must not be
	// snapshotted: the store would copy itself.
	if rel, err := filepath.Rel(g.s.opts.Root, g.s.opts.StateDir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		want = append([]byte("/"+filepath.ToSlash(rel)+"/\n"), want...)
	}
	if data, err := os.ReadFile(filepath.Join(g.s.opts.Root, ".git", "info", "exclude")); err == nil {
		want = append(want, data...)
	}
	p := filepath.Join(g.gitDir(), "info", "exclude")
	if have, err := os.ReadFile(p); err == nil && bytes.Equal(have, want) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return writeAtomic(p, want)
}

func (g *gitBackend) index(session string) string {
	return filepath.Join(g.gitDir(), "hew-index-"+safeName(session))
}

// snapshot stages the work tree into the session's index and writes a tree;
// a commit under refs/hew/SESSION keeps it (and its predecessors) reachable
// until Prune drops the session.
func (g *gitBackend) snapshot(session string, _ []string) (string, error) {
	if err := g.init(); err != nil {
		return "", err
	}
	idx := g.index(session)
	g.seedIndex(idx)
	if _, err := os.Stat(idx); err != nil && !g.noBulk {
		// The project's first snapshot: import the tree in bulk. Should
		// that fail, add -A below does the same the slow way.
		_ = g.bulkImport(idx)
	}
	if _, err := g.run(idx, nil, "add", "-A", "--ignore-errors", "--", "."); err != nil {
		// --ignore-errors still exits 1 when a file could not be read;
		// the tree below holds everything else, so go on.
		if _, werr := g.run(idx, nil, "write-tree"); werr != nil {
			return "", err
		}
	}
	out, err := g.run(idx, nil, "write-tree")
	if err != nil {
		return "", err
	}
	tree := strings.TrimSpace(string(out))
	ref := "refs/hew/" + safeName(session)
	args := []string{"commit-tree", tree, "-m", "hew checkpoint"}
	if parent, err := g.run("", nil, "rev-parse", "-q", "--verify", ref); err == nil {
		args = append(args, "-p", strings.TrimSpace(string(parent)))
	}
	commit, err := g.run("", nil, args...)
	if err != nil {
		return "", err
	}
	if _, err := g.run("", nil, "update-ref", ref, strings.TrimSpace(string(commit))); err != nil {
		return "", err
	}
	return tree, nil
}

func (g *gitBackend) extend(snap string, _ []string) (string, error) { return snap, nil }

// seedIndex starts a new session's index as a copy of the newest one of
// an earlier session: its stat data lets git skip every unchanged file, so
// only the first session in a project pays for hashing the whole tree.
func (g *gitBackend) seedIndex(idx string) {
	if _, err := os.Stat(idx); err == nil {
		return
	}
	matches, _ := filepath.Glob(filepath.Join(g.gitDir(), "hew-index-*"))
	var newest string
	var when time.Time
	for _, m := range matches {
		if strings.HasSuffix(m, ".lock") {
			continue
		}
		if fi, err := os.Stat(m); err == nil && fi.ModTime().After(when) {
			newest, when = m, fi.ModTime()
		}
	}
	if newest == "" {
		return
	}
	if data, err := os.ReadFile(newest); err == nil {
		_ = writeAtomic(idx, data)
	}
}

// diff lists the paths that differ between two trees, with blob ids and modes.
func (g *gitBackend) diff(from, to string) ([]Change, error) {
	if from == to {
		return nil, nil
	}
	out, err := g.run("", nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", from, to)
	if err != nil {
		return nil, err
	}
	var changes []Change
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(meta) < 5 {
			continue
		}
		path := string(fields[i+1])
		before := gitVersion(meta[0], meta[2])
		after := gitVersion(meta[1], meta[3])
		changes = append(changes, Change{Path: path, Before: before, After: after})
	}
	return changes, nil
}

func gitVersion(mode, hash string) Version {
	m, _ := strconv.ParseUint(mode, 8, 32)
	if m == 0 || strings.Trim(hash, "0") == "" {
		return Version{}
	}
	return Version{Exists: true, Hash: hash, Mode: uint32(m)}
}

func (g *gitBackend) blob(v Version) ([]byte, error) {
	if !v.Exists {
		return nil, errors.New("checkpoint: no content for an absent file")
	}
	return g.run("", nil, "cat-file", "blob", v.Hash)
}

func (g *gitBackend) current(rel string) (Version, error) {
	v, _, err := g.s.readVersion(rel, gitBlobHash)
	return v, err
}

// gitBlobHash is git's object id of a blob with this content (SHA-1 repos).
func gitBlobHash(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// safeName keeps a session id usable as a file and ref name.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
