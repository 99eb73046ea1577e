package term

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestReadPiped(t *testing.T) {
	got, err := ReadPiped(strings.NewReader("fix the test\n\n"), 0)
	if err != nil || got != "fix the test" {
		t.Errorf("readPiped = %q, %v", got, err)
	}
	// A pipe that stays open and silent does not hang a run that has a prompt.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	got, err = ReadPiped(r, 20*time.Millisecond)
	if err != nil || got != "" {
		t.Errorf("silent pipe: %q, %v", got, err)
	}
}

func TestClassifyStdin(t *testing.T) {
	f := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if got := ClassifyStdin(file); got != StdinPiped {
		t.Errorf("regular file: %v", got)
	}
	if got := ClassifyStdin(r); got != StdinPiped {
		t.Errorf("pipe: %v", got)
	}
	if got := ClassifyStdin(nil); got != StdinNone {
		t.Errorf("nil: %v", got)
	}
	if null, err := os.Open(os.DevNull); err == nil {
		defer null.Close()
		if got := ClassifyStdin(null); got != StdinNone {
			t.Errorf("%s: %v", os.DevNull, got)
		}
	}
}

// Confirm says yes only to y/yes and leaves what follows the answer's line
// unread.
func TestConfirm(t *testing.T) {
	for _, tc := range []struct {
		in   string
		yes  bool
		rest string
	}{
		{"y\nnext", true, "next"},
		{" YES \r\n", true, ""},
		{"n\ny\n", false, "y\n"},
		{"", false, ""},
		{"yes please\n", false, ""},
	} {
		in := strings.NewReader(tc.in)
		var out strings.Builder
		if got := Confirm(in, &out, "apply? [y/N] "); got != tc.yes || out.String() != "apply? [y/N] " {
			t.Errorf("%q: %v (asked %q), want %v", tc.in, got, out.String(), tc.yes)
		}
		if rest, _ := io.ReadAll(in); string(rest) != tc.rest {
			t.Errorf("%q: left %q, want %q", tc.in, rest, tc.rest)
		}
	}
}

// silent is a pipe left open with nothing written.
type silent struct{ done chan struct{} }

func (s silent) Read([]byte) (int, error) { <-s.done; return 0, io.EOF }

// The piped text follows the command line's after a blank line; a pipe
// that stays silent does not hold up a prompt given as an argument.
func TestAppendPiped(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	for _, tc := range []struct {
		text string
		in   io.Reader
		want string
	}{
		{"", strings.NewReader("  fix it\n"), "fix it"},
		{"review", strings.NewReader("diff --git a b\n+x\n"), "review\n\ndiff --git a b\n+x"},
		{"review", strings.NewReader(" \n"), "review"},
		{"", strings.NewReader(""), ""},
		{"go", silent{done}, "go"},
	} {
		got, err := appendPiped(tc.text, tc.in, 50*time.Millisecond)
		if got != tc.want || err != nil {
			t.Errorf("%q: %q %v, want %q", tc.text, got, err, tc.want)
		}
	}
	if _, err := appendPiped("x", iotest.ErrReader(errors.New("boom")), time.Second); err == nil || err.Error() != "boom" {
		t.Errorf("read error: %v", err)
	}
}
