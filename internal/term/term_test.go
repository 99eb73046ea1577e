package term

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

func TestColorWanted(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want bool
	}{
		{"plain", []string{"TERM=xterm-256color"}, true},
		{"no_color set", []string{"NO_COLOR=1"}, false},
		{"no_color empty is ignored", []string{"NO_COLOR="}, true},
		{"dumb terminal", []string{"TERM=dumb"}, false},
		{"later duplicate wins", []string{"NO_COLOR=1", "NO_COLOR="}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ColorWanted(EnvFromList(tt.env)); got != tt.want {
				t.Errorf("ColorWanted(%v) = %v, want %v", tt.env, got, tt.want)
			}
		})
	}
}

func TestTestStreamsAreNotTerminals(t *testing.T) {
	s, _, out, _ := Test()
	if s.InTTY || s.OutTTY || s.Color {
		t.Fatalf("Test() streams claim a terminal: %+v", s)
	}
	if s.Width() != DefaultWidth {
		t.Errorf("Width = %d, want %d", s.Width(), DefaultWidth)
	}
	s.SetWidth(40)
	if s.Width() != 40 {
		t.Errorf("Width after SetWidth(40) = %d", s.Width())
	}
	_, _ = io.WriteString(s.Out, "hi")
	if out.String() != "hi" {
		t.Errorf("Out buffer = %q", out.String())
	}
}

func TestReadLineSharedAndEOF(t *testing.T) {
	s, in, _, _ := Test()
	in.WriteString("first\r\nsecond\nlast-without-newline")
	ctx := context.Background()
	for _, want := range []string{"first", "second", "last-without-newline"} {
		got, err := s.ReadLine(ctx)
		if err != nil || got != want {
			t.Fatalf("ReadLine = %q, %v; want %q", got, err, want)
		}
	}
	for range 2 {
		if _, err := s.ReadLine(ctx); !errors.Is(err, io.EOF) {
			t.Fatalf("ReadLine at end = %v, want io.EOF", err)
		}
	}
}

func TestReadLineHonoursContext(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	s, _, _, _ := Test()
	s.In = r
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.ReadLine(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ReadLine = %v, want deadline exceeded", err)
	}
	// A line written after the cancelled read is kept for the next call.
	go func() { _, _ = io.WriteString(w, "late\n") }()
	got, err := s.ReadLine(context.Background())
	if err != nil || got != "late" {
		t.Fatalf("ReadLine after cancel = %q, %v", got, err)
	}
}

func TestReadKeyNeedsTerminal(t *testing.T) {
	s, _, _, _ := Test()
	if _, err := s.ReadKey(context.Background()); !errors.Is(err, ErrNotTerminal) {
		t.Fatalf("ReadKey on a buffer = %v, want ErrNotTerminal", err)
	}
}

func TestFromFilesPipeIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening %s: %v", os.DevNull, err)
	}
	defer f.Close()
	s := FromFiles(f, f, f, EnvFromList([]string{"COLUMNS=132"}))
	if s.InTTY || s.OutTTY || s.Color {
		t.Errorf("null device claimed to be a terminal: in=%v out=%v color=%v", s.InTTY, s.OutTTY, s.Color)
	}
	if s.Width() != 132 {
		t.Errorf("Width with COLUMNS=132 = %d", s.Width())
	}
}

// FromIO measures files (COLUMNS applies) and takes any other reader or
// writer as a plain stream of the default width.
func TestFromIO(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := EnvFromList([]string{"COLUMNS=132"})
	var buf bytes.Buffer
	for _, tc := range []struct {
		name  string
		in    io.Reader
		out   io.Writer
		width int
	}{
		{"files", f, f, 132},
		{"a buffer", &buf, &buf, DefaultWidth},
		{"one file is not enough", f, &buf, DefaultWidth},
	} {
		s := FromIO(tc.in, tc.out, f, env)
		if s.In != tc.in || s.Out != tc.out || s.Err != f || s.InTTY || s.OutTTY || s.Color || s.Width() != tc.width {
			t.Errorf("%s: %+v width %d, want %d", tc.name, s, s.Width(), tc.width)
		}
	}
}

// The environment as values: the last definition wins, a value may hold
// "=", and an entry without one is ignored.
func TestEnvFromListLastWins(t *testing.T) {
	env := EnvFromList([]string{"A=1", "A=2", "B=x=y", "junk"})
	for _, tc := range []struct {
		key, want string
		ok        bool
	}{{"A", "2", true}, {"B", "x=y", true}, {"junk", "", false}, {"C", "", false}} {
		if v, ok := env(tc.key); v != tc.want || ok != tc.ok {
			t.Errorf("%s = %q %v, want %q %v", tc.key, v, ok, tc.want, tc.ok)
		}
	}
}
