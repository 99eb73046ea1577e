package shellparse

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func texts(cs []Command) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Text)
	}
	return out
}

func TestCommandsAreSplit(t *testing.T) {
	opts := testOpts(t)
	cases := []struct {
		cmd  string
		want []string
	}{
		{"git log | head", []string{"git log", "head"}},
		{"FOO=1 git log --oneline 2>&1 | head -5", []string{"git log --oneline", "head -5"}},
		{"git log; rm -rf x", []string{"git log", "rm -rf x"}},
		{"cd src && go test ./... || echo failed", []string{"cd src", "go test ./...", "echo failed"}},
		{"echo $(git rev-parse HEAD)", []string{"echo '$(…)'", "git rev-parse HEAD"}},
		{`bash -c 'ls -la && pwd'`, []string{"bash -c 'ls -la && pwd'", "ls -la", "pwd"}},
		{`git commit -m "a b"`, []string{"git commit -m 'a b'"}},
		{"(cd a; make) > log.txt", []string{"cd a", "make"}},
	}
	for _, c := range cases {
		a := Analyze(c.cmd, opts)
		if got := texts(a.Commands); !slices.Equal(got, c.want) {
			t.Errorf("%q: commands %q, want %q", c.cmd, got, c.want)
		}
	}
}

func TestWrappersAreSeenThrough(t *testing.T) {
	opts := testOpts(t)
	cases := []struct{ cmd, inner string }{
		{"sudo rm -rf /tmp/x", "rm -rf /tmp/x"},
		{"env FOO=1 rm -rf build", "rm -rf build"},
		{"timeout 5 nice -n 3 rm -rf build", "rm -rf build"},
		{"find . -exec rm -f {} +", "rm -f {}"},
	}
	for _, c := range cases {
		a := Analyze(c.cmd, opts)
		if len(a.Commands) == 0 || !slices.Contains(a.Commands[0].Unwrapped, c.inner) {
			t.Errorf("%q: unwrapped %v lacks %q", c.cmd, a.Commands, c.inner)
		}
		if !a.Dangerous() {
			t.Errorf("%q: not dangerous", c.cmd)
		}
	}
}

func TestOutsideDeletesAreResolved(t *testing.T) {
	opts := testOpts(t)
	outside := filepath.Join(filepath.Dir(opts.Root), "elsewhere")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(opts.Root, "link")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cmd  string
		want []string // resolved paths; empty = nothing outside
	}{
		{"rm -rf ~/x", []string{filepath.Join(opts.Home, "x")}},
		{"rm -rf $HOME", []string{opts.Home}},
		{"rm -rf ../..", []string{filepath.Dir(filepath.Dir(opts.Root))}},
		{"rm -rf ../*", []string{filepath.Join(filepath.Dir(opts.Root), "*")}},
		{"rm -rf link/sub", []string{filepath.Join(outside, "sub")}},
		{"rm -rf src/../../elsewhere", []string{outside}},
		{"cd .. && rm -rf proj", []string{opts.Root}},
		{"rm -rf build src/old", nil},
		{"rm -rf ./*.o", nil},
		{"rmdir demo", nil},
		{"find . -name '*.pyc' -delete", nil},
		{"rm -rf $X", []string{"$X (unresolved)"}},
	}
	for _, c := range cases {
		a := Analyze(c.cmd, opts)
		if !slices.Equal(a.OutsideDeletes, c.want) {
			t.Errorf("%q: outside deletes %q, want %q", c.cmd, a.OutsideDeletes, c.want)
		}
		if !a.Dangerous() {
			t.Errorf("%q: deletion not dangerous", c.cmd)
		}
	}
}

func TestReadOnly(t *testing.T) {
	opts := testOpts(t)
	cases := []struct {
		cmd string
		ro  bool
	}{
		{"ls -la", true},
		{"git status && git diff | head", true},
		{"grep -rn foo . 2>/dev/null", true},
		{"find . -name '*.go' | xargs wc -l", true},
		{"go vet ./...", false},
		{"cat a > b", false},
		{"find . -delete", false},
		{"find . -exec touch {} \\;", false},
		{"sed -i s/a/b/ f", false},
		{"go test ./...", false},
		{"git commit -m x", false},
		{"git branch new-feature", false},
		{"sort -o out.txt in.txt", false},
		{"ls &", true},
		{"echo $(touch x)", false},
		{"echo 'unterminated", false},
	}
	for _, c := range cases {
		if got := Analyze(c.cmd, opts).ReadOnly; got != c.ro {
			t.Errorf("%q: read-only %v, want %v", c.cmd, got, c.ro)
		}
	}
}

func TestProtectedWrites(t *testing.T) {
	opts := testOpts(t)
	cases := []struct {
		cmd  string
		want string
	}{
		{"echo x > .hew/settings.json", filepath.Join(opts.Root, ".hew", "settings.json")},
		{"cp a .hew/settings.local.json", filepath.Join(opts.Root, ".hew", "settings.local.json")},
		{"echo x >> " + filepath.Join(opts.HewHome, "settings.json"), filepath.Join(opts.HewHome, "settings.json")},
		{"tee .git/hooks/pre-commit < x", filepath.Join(opts.Root, ".git", "hooks", "pre-commit")},
		{"git config alias.x '!rm -rf ~'", filepath.Join(opts.Root, ".git", "config")},
		{"echo x >> ~/.bashrc", filepath.Join(opts.Home, ".bashrc")},
		{"bash -c 'echo x > ~/.profile'", filepath.Join(opts.Home, ".profile")},
	}
	for _, c := range cases {
		a := Analyze(c.cmd, opts)
		if !slices.Contains(a.Protected, c.want) {
			t.Errorf("%q: protected %q lacks %q (%s)", c.cmd, a.Protected, c.want, a.Summary())
		}
	}
	if a := Analyze("echo x > notes.txt", opts); len(a.Protected) != 0 || a.Dangerous() {
		t.Errorf("ordinary write flagged: %s", a.Summary())
	}
}

func TestUnparsableIsDangerous(t *testing.T) {
	a := Analyze("echo 'oops", testOpts(t))
	if a.Err == nil || !a.Dangerous() || a.Dangers[0].Class != ClassUnparsable {
		t.Fatalf("got %+v", a)
	}
	if !strings.Contains(a.Summary(), "cannot parse") {
		t.Errorf("summary %q", a.Summary())
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, e := range []string{"git -C x log", "sed -n 's/a/b/w x' f", "awk '{print > \"x\"}'", "rg --pre x y", "mkdir -p a/b && cp x a/", "rm -rf /", "ls | head", "bash -c 'x'", "find . -exec rm {} +", "sudo -u x env y=1 rm", "echo $'\\x72'", "$(", "a=$(b) c <<EOF\nx\nEOF", ":(){ :|:& };:"} {
		f.Add(e)
	}
	opts := Options{Root: "/proj", Home: "/home/u", HewHome: "/home/u/.hew"}
	f.Fuzz(func(t *testing.T, cmd string) {
		a := Analyze(cmd, opts)
		if a == nil {
			t.Fatal("nil analysis")
		}
		if a.Err != nil && !a.Dangerous() {
			t.Fatalf("parse failure %v not dangerous", a.Err)
		}
		if a.ReadOnly && a.Dangerous() {
			t.Fatalf("read-only yet dangerous: %q", cmd)
		}
		if a.KnownSafe(true) && (a.Dangerous() || a.Err != nil || len(a.Unknown) > 0 || len(a.OutsideDeletes) > 0 || len(a.Protected) > 0) {
			t.Fatalf("known-safe yet flagged: %q (%s)", cmd, a.Why(true))
		}
		for _, c := range a.Commands {
			if a.KnownSafe(true) && c.Level == LevelUnknown {
				t.Fatalf("known-safe with an unknown part %q: %q", c.Text, cmd)
			}
		}
	})
}

func BenchmarkAnalyze(b *testing.B) {
	opts := Options{Root: "/proj", Home: "/home/u"}
	cmd := `cd src && FOO=1 go test ./... 2>&1 | tail -20; git log --oneline | head; bash -c "rm -rf build"`
	b.ReportAllocs()
	for b.Loop() {
		Analyze(cmd, opts)
	}
}
