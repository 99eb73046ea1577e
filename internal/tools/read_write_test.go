package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	env := testEnv(t)
	var lines []string
	for i := 1; i <= 2500; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	writeTestFile(t, env, "big.txt", strings.Join(lines, "\n")+"\n")
	writeTestFile(t, env, "long.txt", "short\n"+strings.Repeat("é", 2100)+"\n")
	writeTestFile(t, env, "crlf.txt", "a\r\nb\r\n")
	writeTestFile(t, env, "empty.txt", "")
	writeTestFile(t, env, "bin.dat", "\x00\x01\x02ELF")
	writeTestFile(t, env, "huge.txt", strings.Repeat("0123456789abcdef\n", 20000))
	os.Mkdir(filepath.Join(env.Root, "dir"), 0o755)

	cases := []struct {
		name    string
		in      map[string]any
		want    []string
		notWant []string
		errWant string
	}{
		{name: "numbered like cat -n", in: map[string]any{"file_path": "big.txt", "limit": 3}, want: []string{"     1\tline 1\n     2\tline 2\n     3\tline 3", "continue with offset=4"}},
		{name: "default limit 2000", in: map[string]any{"file_path": "big.txt"}, want: []string{"  2000\tline 2000", "showed lines 1–2000 of 2500", "offset=2001"}, notWant: []string{"line 2001\n"}},
		{name: "offset", in: map[string]any{"file_path": "big.txt", "offset": 2499}, want: []string{"  2499\tline 2499\n  2500\tline 2500"}, notWant: []string{"more lines"}},
		{name: "offset past end", in: map[string]any{"file_path": "big.txt", "offset": 3000}, errWant: "", want: []string{"has 2500 lines", "past the end"}},
		{name: "long line cut rune-safe", in: map[string]any{"file_path": "long.txt"}, want: []string{"[line cut, 100 more characters]"}},
		{name: "crlf shown without CR", in: map[string]any{"file_path": "crlf.txt"}, want: []string{"     1\ta\n     2\tb"}, notWant: []string{"\r"}},
		{name: "empty file", in: map[string]any{"file_path": "empty.txt"}, want: []string{"is empty"}},
		{name: "binary refused", in: map[string]any{"file_path": "bin.dat"}, errWant: "binary"},
		{name: "huge gives its first window", in: map[string]any{"file_path": "huge.txt"}, want: []string{"too large to show whole", "     1\t0123456789abcdef", "of 20000; continue with offset="}},
		{name: "huge readable in parts", in: map[string]any{"file_path": "huge.txt", "offset": 19999, "limit": 5}, want: []string{" 19999\t0123456789abcdef", " 20000\t"}},
		{name: "missing", in: map[string]any{"file_path": "nope.txt"}, errWant: "does not exist"},
		{name: "directory", in: map[string]any{"file_path": "dir"}, errWant: "is a directory"},
		{name: "outside root", in: map[string]any{"file_path": "/etc/hostname"}, errWant: "outside the project root " + env.Root},
		{name: "dotdot escape", in: map[string]any{"file_path": "dir/../../x"}, errWant: "outside the project root"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := call(t, env, ReadFile{readFileSpec}, tc.in)
			if tc.errWant != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWant) {
					t.Fatalf("err %v, want %q", err, tc.errWant)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("content lacks %q:\n%.300s", w, res.Content)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(res.Content, w) {
					t.Errorf("content has %q", w)
				}
			}
		})
	}
	rec, ok := env.Reads.Get(filepath.Join(env.Root, "big.txt"))
	if !ok || rec.Size == 0 || len(rec.SHA256) != 64 || rec.ModTime.IsZero() {
		t.Errorf("receipt %+v %v", rec, ok)
	}
}

func TestReadFileSymlinkEscape(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on windows")
	}
	env := testEnv(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o644)
	if err := os.Symlink(outside, filepath.Join(env.Root, "link")); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, env, ReadFile{readFileSpec}, map[string]any{"file_path": "link/secret"})
	if err == nil || !strings.Contains(err.Error(), "outside the project root") {
		t.Fatalf("symlink escape: %v", err)
	}
	env.AdditionalDirs = []string{outside}
	if res, err := call(t, env, ReadFile{readFileSpec}, map[string]any{"file_path": "link/secret"}); err != nil || !strings.Contains(res.Content, "s3cret") {
		t.Fatalf("additional dir: %v %q", err, res.Content)
	}
}

func TestWriteFile(t *testing.T) {
	env := testEnv(t)
	res, err := call(t, env, WriteFile{writeFileSpec}, map[string]any{"file_path": "a/b/c.txt", "content": "one\ntwo\n"})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(env.Root, "a/b/c.txt")
	if readTestFile(t, p) != "one\ntwo\n" || !strings.Contains(res.Content, "Created a/b/c.txt: 2 lines") {
		t.Fatalf("create: %q", res.Content)
	}
	if !strings.Contains(res.Display, "+one") {
		t.Errorf("display %q", res.Display)
	}
	// Own writes count as read: overwriting right away is fine.
	res, err = call(t, env, WriteFile{writeFileSpec}, map[string]any{"file_path": "a/b/c.txt", "content": "one\n2\n"})
	if err != nil || !strings.Contains(res.Content, "+1 -1") || !strings.Contains(res.Display, "-two\n+2") {
		t.Fatalf("overwrite: %v %q %q", err, res.Content, res.Display)
	}

	other := writeTestFile(t, env, "existing.sh", "#!/bin/sh\necho hi\n")
	os.Chmod(other, 0o755)
	if _, err := call(t, env, WriteFile{writeFileSpec}, map[string]any{"file_path": "existing.sh", "content": "x"}); err == nil || !strings.Contains(err.Error(), "read_file first") {
		t.Fatalf("overwrite unread: %v", err)
	}
	if _, err := call(t, env, ReadFile{readFileSpec}, map[string]any{"file_path": "existing.sh"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(other, []byte("#!/bin/sh\necho changed\n"), 0o755)
	if _, err := call(t, env, WriteFile{writeFileSpec}, map[string]any{"file_path": "existing.sh", "content": "x"}); err == nil || !strings.Contains(err.Error(), "re-read it") {
		t.Fatalf("overwrite after external change: %v", err)
	}
	if _, err := call(t, env, ReadFile{readFileSpec}, map[string]any{"file_path": "existing.sh"}); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, env, WriteFile{writeFileSpec}, map[string]any{"file_path": "existing.sh", "content": "#!/bin/sh\necho new\n"}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(other); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v not kept", fi.Mode().Perm())
	}
	if _, err := call(t, env, WriteFile{writeFileSpec}, map[string]any{"file_path": "../escape.txt", "content": "x"}); err == nil || !strings.Contains(err.Error(), "outside the project root") {
		t.Errorf("escape: %v", err)
	}
	// Writes may not go to the tool-results dir even though reads may.
	if _, err := call(t, env, WriteFile{writeFileSpec}, map[string]any{"file_path": filepath.Join(env.StateDir, "tool-results", "x.txt"), "content": "x"}); err == nil {
		t.Error("write into tool-results accepted")
	}
}

// A file over 256 KB read without offset/limit answers with its first
// window, the total line count and how to page (issue 12.6), instead of an
// error that costs a round trip.
func TestReadFileLargeGivesFirstWindow(t *testing.T) {
	env := testEnv(t)
	var sb strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&sb, "line %05d of a large log file with some padding text\n", i)
	}
	writeTestFile(t, env, "big.log", sb.String())
	res, err := call(t, env, ReadFile{readFileSpec}, map[string]any{"file_path": "big.log"})
	if err != nil {
		t.Fatalf("large file refused: %v", err)
	}
	for _, want := range []string{"big.log is 1.0 MB", "     1\tline 00001", "of 20000; continue with offset="} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content[len(res.Content)-300:])
		}
	}
	if len(res.Content) > DefaultMaxChars {
		t.Errorf("first window is %d bytes, more than the result cut (%d)", len(res.Content), DefaultMaxChars)
	}
	// Paging on with the offset it names works.
	res, err = call(t, env, ReadFile{readFileSpec}, map[string]any{"file_path": "big.log", "offset": 19999})
	if err != nil || !strings.Contains(res.Content, "20000\tline 20000") {
		t.Fatalf("paging: %v %q", err, res.Content)
	}
}
