package tools

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/fsutil"
)

// grepMaxFileBytes skips files larger than this in the built-in search.
const grepMaxFileBytes = 64 << 20

// typeExts maps grep_search types to file name globs (a subset of ripgrep's).
var typeExts = map[string][]string{
	"go": {"*.go"}, "py": {"*.py", "*.pyi"}, "python": {"*.py", "*.pyi"},
	"js": {"*.js", "*.jsx", "*.mjs", "*.cjs"}, "ts": {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"rust": {"*.rs"}, "java": {"*.java"}, "c": {"*.c", "*.h"},
	"cpp": {"*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"},
	"cs":  {"*.cs"}, "rb": {"*.rb"}, "ruby": {"*.rb"}, "php": {"*.php"},
	"swift": {"*.swift"}, "kotlin": {"*.kt", "*.kts"}, "scala": {"*.scala"},
	"sh": {"*.sh", "*.bash", "*.zsh"}, "md": {"*.md", "*.markdown"}, "markdown": {"*.md", "*.markdown"},
	"json": {"*.json"}, "yaml": {"*.yaml", "*.yml"}, "toml": {"*.toml"}, "xml": {"*.xml"},
	"html": {"*.html", "*.htm"}, "css": {"*.css", "*.scss", "*.sass", "*.less"},
	"sql": {"*.sql"}, "proto": {"*.proto"}, "txt": {"*.txt"}, "lua": {"*.lua"},
	"make": {"Makefile", "makefile", "GNUmakefile", "*.mk"}, "docker": {"Dockerfile", "*.dockerfile"},
}

// searchBuiltin walks q.base (gitignore-aware) and searches files in
// parallel with Go regexps. On cancellation it returns what it found with
// ctx's error.
func searchBuiltin(ctx context.Context, re *regexp.Regexp, q grepQuery) ([]grepFile, error) {
	paths := make(chan string, 256)
	results := make(chan grepFile, 64)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // reused per worker; results copy what they keep
			for p := range paths {
				if ctx.Err() != nil {
					continue
				}
				var f grepFile
				var ok bool
				if f, buf, ok = grepOneFile(re, q, p, buf); ok {
					results <- f
				}
			}
		}()
	}
	var files []grepFile
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for f := range results {
			files = append(files, f)
		}
	}()
	walkErr := fsutil.Walk(ctx, q.base, func(abs string) error {
		if !wantFile(q, abs) {
			return nil
		}
		select {
		case paths <- abs:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(paths)
	wg.Wait()
	close(results)
	<-collected
	if walkErr == nil {
		walkErr = ctx.Err()
	}
	return files, walkErr
}

// wantFile applies the glob and type filters.
func wantFile(q grepQuery, abs string) bool {
	rel := filepath.Base(abs)
	if r, err := filepath.Rel(q.base, abs); err == nil && r != "." {
		rel = filepath.ToSlash(r)
	}
	if q.in.Glob != "" {
		ok := false
		for _, g := range splitGlobs(q.in.Glob) {
			if fsutil.MatchName(g, rel) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if q.in.Type != "" {
		for _, g := range typeExts[q.in.Type] {
			if fsutil.MatchName(g, rel) {
				return true
			}
		}
		return false
	}
	return true
}

// splitGlobs splits "a,b" at top-level commas (braces keep theirs).
func splitGlobs(g string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range g {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ',', ' ':
			if depth == 0 {
				if s := strings.TrimSpace(g[start:i]); s != "" {
					out = append(out, s)
				}
				start = i + 1
			}
		}
	}
	if s := strings.TrimSpace(g[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// grepOneFile searches one file; ok=false when it has no match or is
// unreadable, binary or too large.
func grepOneFile(re *regexp.Regexp, q grepQuery, abs string, buf []byte) (grepFile, []byte, bool) {
	data, fi, buf, err := readInto(abs, buf)
	if err != nil || bytes.IndexByte(data[:min(len(data), fsutil.SniffLen)], 0) >= 0 {
		return grepFile{}, buf, false
	}
	f, ok := grepData(re, q, abs, fi, data)
	return f, buf, ok
}

// readInto reads a regular, non-symlink file of at most grepMaxFileBytes into buf.
func readInto(abs string, buf []byte) ([]byte, os.FileInfo, []byte, error) {
	// Symlinks are not followed (as with ripgrep): one could point outside
	// the project.
	if li, err := os.Lstat(abs); err != nil || li.Mode()&os.ModeSymlink != 0 {
		return nil, nil, buf, errSkip
	}
	fh, err := os.Open(abs)
	if err != nil {
		return nil, nil, buf, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > grepMaxFileBytes {
		return nil, nil, buf, errSkip
	}
	n := int(fi.Size())
	if cap(buf) < n+1 {
		buf = make([]byte, n+1+n/4)
	}
	got, err := io.ReadFull(fh, buf[:n])
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, nil, buf, err
	}
	return buf[:got], fi, buf, nil
}

var errSkip = errors.New("skip")

// grepData finds the matching lines of one file's content.
func grepData(re *regexp.Regexp, q grepQuery, abs string, fi os.FileInfo, data []byte) (grepFile, bool) {
	if q.mode == "files_with_matches" {
		if !re.Match(data) {
			return grepFile{}, false
		}
		return grepFile{abs: abs, count: 1, mtime: fi.ModTime()}, true
	}
	locs := re.FindAllIndex(data, -1)
	if len(locs) == 0 {
		return grepFile{}, false
	}
	f := grepFile{abs: abs, mtime: fi.ModTime()}
	// Line numbers of matches: a match counts for the line it starts on.
	var matchLines []int
	line, pos := 1, 0
	for _, loc := range locs {
		if loc[0] == loc[1] && loc[0] == len(data) && len(data) > 0 && data[len(data)-1] == '\n' {
			continue // empty match after the final newline is not a line
		}
		line += bytes.Count(data[pos:loc[0]], []byte{'\n'})
		pos = loc[0]
		if n := len(matchLines); n == 0 || matchLines[n-1] != line {
			matchLines = append(matchLines, line)
		}
	}
	if len(matchLines) == 0 {
		return grepFile{}, false
	}
	f.count = len(matchLines)
	if q.mode != "content" {
		return f, true
	}
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	isMatch := make(map[int]bool, len(matchLines))
	for _, m := range matchLines {
		isMatch[m] = true
	}
	last := 0
	for _, m := range matchLines {
		from, to := max(m-q.before, last+1), min(m+q.after, len(lines))
		for n := from; n <= to; n++ {
			f.lines = append(f.lines, grepLine{num: n, text: string(lines[n-1]), match: isMatch[n]})
			last = n
		}
	}
	return f, true
}
