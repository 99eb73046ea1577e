package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/llm"
)

// newSessionIn writes a session of root with one prompt, modified at t.
func newSessionIn(t *testing.T, home, root, prompt string, at time.Time) string {
	t.Helper()
	w, err := Create(Dir(home, root), Meta{Cwd: root, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	w.Message(llm.Message{Role: llm.RoleUser, Content: []llm.Block{text(prompt)}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(w.Path(), at, at); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

// -c, --resume ID and a bare --resume name one session file; every way
// of naming none is ErrNoSession with a message that says what to do.
func TestResumePath(t *testing.T) {
	home := t.TempDir()
	one, two, empty := "/work/one", "/work/two", "/work/empty"
	now := time.Now()
	only := newSessionIn(t, home, one, "the only one", now)
	older := newSessionIn(t, home, two, "older", now.Add(-time.Hour))
	newer := newSessionIn(t, home, two, "newer", now)
	onlyID := strings.TrimSuffix(filepath.Base(only), ".jsonl")
	pickOlder := func(l []Info) (string, bool) { return l[len(l)-1].Path, true }
	pickNone := func([]Info) (string, bool) { return "", false }
	for _, tc := range []struct {
		name   string
		r      Resume
		root   string
		choose func([]Info) (string, bool)
		want   string
		err    string // "" for none; ErrNoSession is checked for each
	}{
		{"new session", Resume{}, one, nil, "", ""},
		{"-c", Resume{Latest: true}, two, nil, newer, ""},
		{"-c with nothing to continue", Resume{Latest: true}, empty, nil, "", "no session to continue in /work/empty"},
		{"--resume ID from another directory", Resume{ByID: true, ID: onlyID}, two, nil, only, ""},
		{"--resume unknown ID", Resume{ByID: true, ID: "01NOPE"}, one, nil, "", `no session "01NOPE"`},
		{"--resume bad ID", Resume{ByID: true, ID: "../x"}, one, nil, "", "invalid session id"},
		{"--resume empty ID", Resume{ByID: true}, one, nil, "", "invalid session id"},
		{"bare --resume, one session", Resume{Pick: true}, one, nil, only, ""},
		{"bare --resume, none", Resume{Pick: true}, empty, nil, "", "no sessions in /work/empty"},
		{"bare --resume, several, nobody to ask", Resume{Pick: true}, two, nil, "", "--resume needs a session id here; sessions of this directory:\n  "},
		{"bare --resume, several, picked", Resume{Pick: true}, two, pickOlder, older, ""},
		{"bare --resume, several, none picked", Resume{Pick: true}, two, pickNone, "", "no session picked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.r.Path(home, tc.root, tc.choose)
			if got != tc.want {
				t.Errorf("path %q, want %q", got, tc.want)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrNoSession)) {
				t.Errorf("error %v, want %q (ErrNoSession)", err, tc.err)
			}
		})
	}
}
