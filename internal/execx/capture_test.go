package execx

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	cases := []struct {
		name    string
		max     int
		writes  []string
		want    string
		wantCut int
	}{
		{"fits", 100, []string{"hello ", "world"}, "hello world", 0},
		{"exact fit", 4, []string{"ab", "cd"}, "abcd", 0},
		{"cut middle", 6, []string{"abc", "defghi", "jkl"}, "abc\n[… 6 bytes of output cut …]\njkl", 6},
		{"many small writes", 4, strings.Split("0123456789", ""), "01\n[… 6 bytes of output cut …]\n89", 6},
	}
	for _, tc := range cases {
		c := newCapture(tc.max)
		for _, w := range tc.writes {
			c.Write([]byte(w))
		}
		got, cut := c.finish()
		if got != tc.want || cut != tc.wantCut {
			t.Errorf("%s: got %q (%d cut), want %q (%d)", tc.name, got, cut, tc.want, tc.wantCut)
		}
		if n, _ := c.Write([]byte("late")); n != 4 {
			t.Errorf("%s: write after finish returned %d", tc.name, n)
		}
		if again, _ := c.finish(); again != got {
			t.Errorf("%s: output changed after finish", tc.name)
		}
	}
}

func TestCaptureCutsOnRuneBoundaries(t *testing.T) {
	c := newCapture(7)
	c.Write([]byte(strings.Repeat("日本語", 10)))
	got, cut := c.finish()
	if !utf8.ValidString(got) {
		t.Fatalf("invalid UTF-8: %q", got)
	}
	if !strings.Contains(got, "bytes of output cut") || cut <= 90-7 {
		t.Errorf("got %q cut %d", got, cut)
	}
}

func TestEffectiveTimeout(t *testing.T) {
	cases := map[time.Duration]time.Duration{0: DefaultTimeout, -1: DefaultTimeout, time.Second: time.Second, time.Hour: MaxTimeout}
	for in, want := range cases {
		if got := EffectiveTimeout(in); got != want {
			t.Errorf("EffectiveTimeout(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestShellArgvRejectsEmpty(t *testing.T) {
	if _, err := ShellArgv(""); err == nil {
		t.Error("empty command accepted")
	}
	argv, err := ShellArgv("echo hi")
	if err != nil || len(argv) != 3 || argv[2] != "echo hi" {
		t.Errorf("argv %q %v", argv, err)
	}
}
