package fsutil

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/callenv"
)

func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestResolve(t *testing.T) {
	root := realTemp(t)
	home := realTemp(t)
	extra := realTemp(t)
	state := realTemp(t)
	outside := realTemp(t)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.WriteFile(filepath.Join(root, "src", "a.go"), nil, 0o644)
	os.MkdirAll(filepath.Join(state, "tool-results"), 0o755)
	symlinks := runtime.GOOS != "windows"
	if symlinks {
		os.Symlink(outside, filepath.Join(root, "escape"))
		os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "inside-link"))
		os.Symlink(filepath.Join(outside, "target.txt"), filepath.Join(root, "file-link"))
	}
	allowed := filepath.Join(outside, "allowed.txt")
	env := &callenv.Env{Root: root, HomeDir: home, AdditionalDirs: []string{extra}, StateDir: state,
		AllowOutside: func(tool, abs string) bool { return tool == "read_file" && abs == allowed }}

	cases := []struct {
		name, tool, path string
		want             string // absolute result, "" when refused
		symlink          bool
	}{
		{"relative", "read_file", "src/a.go", filepath.Join(root, "src", "a.go"), false},
		{"dot", "list_files", ".", root, false},
		{"absolute inside", "read_file", filepath.Join(root, "src"), filepath.Join(root, "src"), false},
		{"dotdot inside", "read_file", "src/../src/a.go", filepath.Join(root, "src", "a.go"), false},
		{"dotdot escape", "read_file", "../x", "", false},
		{"new file in new dirs", "write_file", "new/deep/f.txt", filepath.Join(root, "new", "deep", "f.txt"), false},
		{"home expansion outside", "read_file", "~/notes.txt", "", false},
		{"additional dir", "write_file", filepath.Join(extra, "x"), filepath.Join(extra, "x"), false},
		{"allow rule", "read_file", allowed, allowed, false},
		{"allow rule is per tool", "write_file", allowed, "", false},
		{"tool results readable", "read_file", filepath.Join(state, "tool-results", "t1.txt"), filepath.Join(state, "tool-results", "t1.txt"), false},
		{"tool results not writable", "write_file", filepath.Join(state, "tool-results", "t1.txt"), "", false},
		{"state dir itself not readable", "read_file", filepath.Join(state, "sessions"), "", false},
		{"symlinked dir escape", "read_file", "escape/secret", "", true},
		{"new file under symlinked dir escape", "write_file", "escape/new/file.txt", "", true},
		{"symlinked file escape", "read_file", "file-link", "", true},
		{"symlink inside", "read_file", "inside-link/a.go", filepath.Join(root, "src", "a.go"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.symlink && !symlinks {
				t.Skip("symlinks need privileges on windows")
			}
			got, err := Resolve(env, tc.tool, tc.tool != "write_file", tc.path)
			if tc.want == "" {
				var oe *OutsideError
				if !errors.As(err, &oe) {
					t.Fatalf("got %q, %v; want refusal", got, err)
				}
				if !strings.Contains(err.Error(), "outside the project root "+root) {
					t.Errorf("message does not name the root: %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	env.HomeDir = root
	if got, err := Resolve(env, "read_file", true, "~/src/a.go"); err != nil || got != filepath.Join(root, "src", "a.go") {
		t.Errorf("~ inside root: %q %v", got, err)
	}
	if _, err := Resolve(env, "read_file", true, " "); err == nil {
		t.Error("empty path accepted")
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.sh")
	if err := WriteFileAtomic(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		os.Chmod(p, 0o751)
	}
	if err := WriteFileAtomic(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o751) {
		t.Errorf("content %q mode %v", b, fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	if err := WriteFileAtomic(filepath.Join(p, "child"), []byte("x"), 0o644); err == nil {
		t.Error("writing below a file succeeded")
	}
}

func TestIsBinary(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want bool
	}{
		{"ascii", []byte("package main\n\nfunc main() {}\n"), false},
		{"utf8 cjk", []byte(strings.Repeat("中文テキスト\n", 100)), false},
		{"ansi colours", []byte("\x1b[31mred\x1b[0m\n"), false},
		{"empty", nil, false},
		{"nul", []byte("abc\x00def"), true},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), true},
		{"latin1 noise", []byte{0xff, 0xfe, 0xfd, 0xfc, 0x80, 0x81, 'a', 0x90, 0x91, 0x92}, true},
		{"utf8 cut at sniff end", append([]byte(strings.Repeat("a", SniffLen-1)), "é"...), false},
	}
	for _, tc := range cases {
		if got := IsBinary(tc.data); got != tc.want {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
}

func TestGlobGitignoreNewestFirst(t *testing.T) {
	dir := realTemp(t)
	files := []string{".gitignore", "a.go", "sub/b.go", "sub/c.txt", "vendor/d.go", "x.log", ".git/config", "sub/.gitignore", "sub/gen.go", ".env"}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		content := "x"
		switch f {
		case ".gitignore":
			content = "vendor/\n*.log\n"
		case "sub/.gitignore":
			content = "gen.go\n"
		}
		os.WriteFile(p, []byte(content), 0o644)
	}
	now := time.Now()
	os.Chtimes(filepath.Join(dir, "a.go"), now.Add(-time.Hour), now.Add(-time.Hour))
	got, err := Glob(context.Background(), dir, "**/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range got {
		rels = append(rels, f.Rel)
	}
	if strings.Join(rels, ",") != "sub/b.go,a.go" {
		t.Errorf("glob = %v", rels)
	}
	all, _ := Glob(context.Background(), dir, "")
	var names []string
	for _, f := range all {
		names = append(names, f.Rel)
	}
	joined := "," + strings.Join(names, ",") + ","
	for _, w := range []string{",.env,", ",sub/c.txt,", ",.gitignore,"} {
		if !strings.Contains(joined, w) {
			t.Errorf("missing %s in %v", w, names)
		}
	}
	for _, nw := range []string{"vendor", ".git/", "x.log", "gen.go"} {
		if strings.Contains(joined, nw) {
			t.Errorf("ignored %s listed: %v", nw, names)
		}
	}
	if _, err := Glob(context.Background(), dir, "[unclosed"); err == nil {
		t.Error("bad pattern accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Walk(ctx, dir, func(string) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: %v", err)
	}
}

func BenchmarkWalkGOROOT(b *testing.B) {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("no GOROOT/src")
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := Walk(context.Background(), src, func(string) error { n++; return nil }); err != nil || n < 1000 {
			b.Fatal(err, n)
		}
	}
}

func TestWalkHonoursAncestorIgnores(t *testing.T) {
	repo := realTemp(t)
	for f, c := range map[string]string{
		".git/HEAD":                     "ref: refs/heads/main\n",
		".gitignore":                    "node_modules/\n*.log\n/web/dist\n",
		"web/app.js":                    "x",
		"web/debug.log":                 "x",
		"web/node_modules/lib/index.js": "x",
		"web/dist/bundle.js":            "x",
		"web/src/dist/keep.js":          "x",
	} {
		p := filepath.Join(repo, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(c), 0o644)
	}
	files, err := Glob(context.Background(), filepath.Join(repo, "web"), "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Rel)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != "app.js,src/dist/keep.js" {
		t.Errorf("walk of web/ = %v", got)
	}
}
