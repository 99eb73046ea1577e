package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// searchRipgrep runs rg and parses its NUL-separated output into the same
// shape as the built-in search. Partial results survive a timeout.
func searchRipgrep(ctx context.Context, rg string, q grepQuery) ([]grepFile, error) {
	args := []string{"--null", "--no-heading", "--color", "never", "--hidden", "--no-require-git",
		"--glob", "!.git", "--no-messages"}
	if q.in.IgnoreCase {
		args = append(args, "-i")
	}
	for _, g := range splitGlobs(q.in.Glob) {
		args = append(args, "--glob", g)
	}
	if q.in.Type != "" {
		args = append(args, "--type", q.in.Type)
	}
	switch q.mode {
	case "files_with_matches":
		args = append(args, "--files-with-matches")
	case "count":
		args = append(args, "--count")
	default:
		args = append(args, "--line-number")
		if q.before > 0 {
			args = append(args, "-B", strconv.Itoa(q.before))
		}
		if q.after > 0 {
			args = append(args, "-A", strconv.Itoa(q.after))
		}
	}
	// Search relative to the base directory: ripgrep applies path globs
	// (pkg/*.go) reliably only to paths relative to its working directory.
	dir, target := q.base, "."
	if fi, err := os.Stat(q.base); err == nil && !fi.IsDir() {
		dir, target = filepath.Dir(q.base), filepath.Base(q.base)
	}
	args = append(args, "--regexp", q.in.Pattern, "--", target)
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	files := parseRipgrep(q.mode, stdout.Bytes())
	for i := range files {
		files[i].abs = filepath.Join(dir, files[i].abs)
	}
	if ctx.Err() != nil {
		return files, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		switch {
		case ee.ExitCode() == 1:
			return files, nil // no matches
		case len(files) > 0:
			return files, nil // partial errors (unreadable files) with results
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("ripgrep: %s", msg)
	}
	if err != nil {
		return nil, fmt.Errorf("ripgrep: %w", err)
	}
	return files, nil
}

// parseRipgrep reads --null output: "path\0" followed by "N:text" (match),
// "N-text" (context) or a count; files mode prints bare "path\0" records.
func parseRipgrep(mode string, out []byte) []grepFile {
	var files []grepFile
	idx := map[string]int{}
	get := func(p string) *grepFile {
		i, ok := idx[p]
		if !ok {
			i = len(files)
			idx[p] = i
			files = append(files, grepFile{abs: p})
		}
		return &files[i]
	}
	if mode == "files_with_matches" {
		for _, p := range bytes.Split(out, []byte{0}) {
			if s := strings.TrimSpace(string(p)); s != "" {
				get(s).count = 1
			}
		}
		return files
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		nul := strings.IndexByte(line, 0)
		if nul < 0 {
			continue // "--" group separator
		}
		path, rest := line[:nul], line[nul+1:]
		f := get(path)
		if mode == "count" {
			f.count, _ = strconv.Atoi(strings.TrimSpace(rest))
			continue
		}
		i := strings.IndexAny(rest, ":-")
		if i <= 0 {
			continue
		}
		n, err := strconv.Atoi(rest[:i])
		if err != nil {
			continue
		}
		m := rest[i] == ':'
		if m {
			f.count++
		}
		f.lines = append(f.lines, grepLine{num: n, text: rest[i+1:], match: m})
	}
	return files
}
