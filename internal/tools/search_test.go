package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

// searchTree builds a small project with ignored files and varied mtimes.
func searchTree(t testing.TB) *Env {
	env := testEnv(t)
	files := map[string]string{
		".gitignore":         "build/\n*.log\n",
		"main.go":            "package main\n\nfunc main() {\n\tHello()\n}\n",
		"pkg/hello.go":       "package pkg\n\n// Hello greets.\nfunc Hello() string {\n\treturn \"hello\"\n}\n",
		"pkg/hello_test.go":  "package pkg\n\nfunc TestHello() { Hello() }\n",
		"docs/readme.md":     "# Hello docs\nhello world\n",
		"build/out.go":       "package build // Hello in ignored dir\n",
		"debug.log":          "Hello from a log\n",
		".hidden/conf.yaml":  "hello: true\n",
		"web/app.ts":         "export const hello = 1;\n",
		"nested/.gitignore":  "secret.txt\n",
		"nested/secret.txt":  "Hello secret\n",
		"nested/visible.txt": "Hello visible\n",
		"bin/tool":           "\x00\x01Hello binary",
	}
	base := time.Now().Add(-time.Hour)
	for rel, content := range files {
		p := writeTestFile(t, env, rel, content)
		os.Chtimes(p, base, base)
	}
	// Deterministic mtimes: main.go newest, then pkg/hello.go.
	order := []string{"docs/readme.md", "pkg/hello_test.go", "pkg/hello.go", "main.go"}
	for k, rel := range order {
		mt := base.Add(time.Duration(k+1) * time.Minute)
		os.Chtimes(filepath.Join(env.Root, rel), mt, mt)
	}
	return env
}

func TestListFiles(t *testing.T) {
	env := searchTree(t)
	cases := []struct {
		in       map[string]any
		want     []string // in order
		notWant  []string
		contains string
	}{
		{in: map[string]any{"pattern": "**/*.go"}, want: []string{"main.go", "pkg/hello.go", "pkg/hello_test.go"}, notWant: []string{"build/out.go"}},
		{in: map[string]any{"pattern": "*.go", "path": "pkg"}, want: []string{"pkg/hello.go", "pkg/hello_test.go"}},
		{in: map[string]any{"pattern": "pkg/*_test.go"}, want: []string{"pkg/hello_test.go"}, notWant: []string{"pkg/hello.go\n"}},
		{in: map[string]any{"pattern": "**/*.{md,ts}"}, want: []string{"docs/readme.md"}, contains: "web/app.ts"},
		{in: map[string]any{}, contains: ".hidden/conf.yaml", notWant: []string{"debug.log", "nested/secret.txt", ".git/"}},
		{in: map[string]any{"pattern": "*.txt"}, contains: "use **/*.txt"},
		{in: map[string]any{"pattern": filepath.Join(env.Root, "pkg") + "/*.go"}, want: []string{"pkg/hello.go", "pkg/hello_test.go"}},
	}
	for _, tc := range cases {
		res, err := call(t, env, ListFiles{listFilesSpec}, tc.in)
		if err != nil {
			t.Fatalf("%v: %v", tc.in, err)
		}
		pos := -1
		for _, w := range tc.want {
			i := strings.Index(res.Content, w)
			if i < 0 || i < pos {
				t.Errorf("%v: %q missing or out of order in\n%s", tc.in, w, res.Content)
			}
			pos = i
		}
		for _, w := range tc.notWant {
			if strings.Contains(res.Content, w) {
				t.Errorf("%v: has %q:\n%s", tc.in, w, res.Content)
			}
		}
		if tc.contains != "" && !strings.Contains(res.Content, tc.contains) {
			t.Errorf("%v: lacks %q:\n%s", tc.in, tc.contains, res.Content)
		}
	}
	if _, err := call(t, env, ListFiles{listFilesSpec}, map[string]any{"path": "/"}); err == nil || !strings.Contains(err.Error(), "outside the project root") {
		t.Errorf("outside: %v", err)
	}
}

func TestListFilesCap(t *testing.T) {
	env := testEnv(t)
	for i := 0; i < ListMax+7; i++ {
		writeTestFile(t, env, fmt.Sprintf("f%03d.txt", i), "x")
	}
	res, err := call(t, env, ListFiles{listFilesSpec}, map[string]any{"pattern": "*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Content, ".txt\n"); n != ListMax {
		t.Errorf("%d lines listed", n)
	}
	if !strings.Contains(res.Content, "7 more files omitted") {
		t.Errorf("no omission note: %s", res.Content[len(res.Content)-100:])
	}
}

// backends runs f once per available grep engine.
func backends(t *testing.T, f func(t *testing.T)) {
	for _, b := range []string{"builtin", "rg"} {
		t.Run(b, func(t *testing.T) {
			if b == "rg" {
				testenv.Tool(t, "rg")
			}
			old := GrepBackend
			GrepBackend = b
			defer func() { GrepBackend = old }()
			f(t)
		})
	}
}

func TestGrepSearch(t *testing.T) {
	backends(t, func(t *testing.T) {
		env := searchTree(t)
		cases := []struct {
			name    string
			in      map[string]any
			exact   string
			want    []string
			notWant []string
		}{
			{name: "files newest first, ignores respected", in: map[string]any{"pattern": "Hello"},
				exact: "main.go\npkg/hello.go\npkg/hello_test.go\ndocs/readme.md\nnested/visible.txt"},
			{name: "case-insensitive", in: map[string]any{"pattern": "hello world", "-i": true}, exact: "docs/readme.md"},
			{name: "content mode", in: map[string]any{"pattern": "func Hello", "output_mode": "content"}, exact: "pkg/hello.go:4:func Hello() string {"},
			{name: "context lines", in: map[string]any{"pattern": "func Hello", "output_mode": "content", "-B": 1, "-A": 1},
				exact: "pkg/hello.go-3-// Hello greets.\npkg/hello.go:4:func Hello() string {\npkg/hello.go-5-\treturn \"hello\""},
			{name: "count", in: map[string]any{"pattern": "Hello", "output_mode": "count", "glob": "*.go"},
				want: []string{"main.go:1", "pkg/hello.go:2", "pkg/hello_test.go:1", "[4 matches in 3 files]"}},
			{name: "glob with path", in: map[string]any{"pattern": "Hello", "glob": "pkg/*_test.go"}, exact: "pkg/hello_test.go"},
			{name: "type filter", in: map[string]any{"pattern": "hello", "type": "ts"}, exact: "web/app.ts"},
			{name: "path restricts", in: map[string]any{"pattern": "Hello", "path": "pkg"}, exact: "pkg/hello.go\npkg/hello_test.go"},
			{name: "hidden files searched", in: map[string]any{"pattern": "hello: true"}, exact: ".hidden/conf.yaml"},
			{name: "no matches", in: map[string]any{"pattern": "zzz_nothing"}, want: []string{"No matches"}},
			{name: "head limit", in: map[string]any{"pattern": "Hello", "head_limit": 2}, want: []string{"main.go\npkg/hello.go\n[3 more entries omitted"}},
		}
		for _, tc := range cases {
			res, err := call(t, env, GrepSearch{grepSearchSpec}, tc.in)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if tc.exact != "" && res.Content != tc.exact {
				t.Errorf("%s:\n got %q\nwant %q", tc.name, res.Content, tc.exact)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("%s: lacks %q in %q", tc.name, w, res.Content)
				}
			}
		}
		if _, err := call(t, env, GrepSearch{grepSearchSpec}, map[string]any{"pattern": "a(b"}); err == nil || !strings.Contains(err.Error(), "invalid regular expression") {
			t.Errorf("bad regexp: %v", err)
		}
	})
}

func TestGrepDoesNotFollowSymlinksOut(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on windows")
	}
	backends(t, func(t *testing.T) {
		env := searchTree(t)
		outside := filepath.Join(t.TempDir(), "secret.txt")
		os.WriteFile(outside, []byte("TOPSECRET\n"), 0o644)
		if err := os.Symlink(outside, filepath.Join(env.Root, "leak.txt")); err != nil {
			t.Fatal(err)
		}
		res, err := call(t, env, GrepSearch{grepSearchSpec}, map[string]any{"pattern": "TOPSECRET", "output_mode": "content"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Content, "leak.txt") || !strings.Contains(res.Content, "No matches") {
			t.Errorf("content read through a symlink to outside the root: %q", res.Content)
		}
	})
}

func TestGrepTimeoutIsNotNoMatches(t *testing.T) {
	backends(t, func(t *testing.T) {
		env := searchTree(t)
		old := GrepTimeout
		GrepTimeout = time.Nanosecond
		defer func() { GrepTimeout = old }()
		res, err := call(t, env, GrepSearch{grepSearchSpec}, map[string]any{"pattern": "Hello"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Content, "timed out") || strings.Contains(res.Content, "No matches") {
			t.Errorf("timeout reported as %q", res.Content)
		}
	})
}

// BenchmarkGrepGOROOT searches the Go standard library sources, comparing
// the built-in engine with ripgrep.
func BenchmarkGrepGOROOT(b *testing.B) {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("GOROOT/src not present")
	}
	env := &Env{Root: src}
	patterns := map[string]string{"regexp": `func \(\w+ \*Reader\) Read\w*\(`, "literal": "ErrUnexpectedEOF"}
	for _, engine := range []string{"builtin", "rg"} {
		for _, mode := range []string{"files_with_matches", "content"} {
			for _, kind := range []string{"regexp", "literal"} {
				b.Run(engine+"/"+mode+"/"+kind, func(b *testing.B) {
					if engine == "rg" {
						if _, err := exec.LookPath("rg"); err != nil {
							b.Skip("ripgrep not installed")
						}
					}
					old := GrepBackend
					GrepBackend = engine
					defer func() { GrepBackend = old }()
					in := mustJSON(b, map[string]any{"pattern": patterns[kind], "output_mode": mode, "head_limit": 100000})
					b.ReportAllocs()
					for b.Loop() {
						res, err := GrepSearch{grepSearchSpec}.Run(b.Context(), env, in)
						if err != nil || res.IsError || !strings.Contains(res.Content, "io") {
							b.Fatalf("%v %.200s", err, res.Content)
						}
					}
				})
			}
		}
	}
}

// A Read deny rule must hold against project-wide searches too: denied
// files are dropped from grep_search and list_files results.
func TestSearchesDropDeniedFiles(t *testing.T) {
	for _, backend := range []string{"builtin", "auto"} {
		t.Run(backend, func(t *testing.T) {
			old := GrepBackend
			GrepBackend = backend
			defer func() { GrepBackend = old }()
			env := testEnv(t)
			writeTestFile(t, env, "pub.txt", "TOPSECRET mention\n")
			secret := writeTestFile(t, env, "secrets/k.env", "TOPSECRET=1\n")
			env.DeniedRead = func(tool, abs string) bool { return abs == secret }
			for _, mode := range []string{"content", "files_with_matches", "count"} {
				res, err := call(t, env, GrepSearch{grepSearchSpec}, map[string]any{"pattern": "TOPSECRET", "output_mode": mode})
				if err != nil || !strings.Contains(res.Content, "pub.txt") || strings.Contains(res.Content, "k.env") {
					t.Errorf("grep %s: %v %q", mode, err, res.Content)
				}
			}
			res, err := call(t, env, ListFiles{listFilesSpec}, map[string]any{"pattern": "**/*"})
			if err != nil || !strings.Contains(res.Content, "pub.txt") || strings.Contains(res.Content, "k.env") {
				t.Errorf("list: %v %q", err, res.Content)
			}
		})
	}
}
