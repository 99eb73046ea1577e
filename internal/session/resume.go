package session

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoSession marks the answers to -c and --resume that name no session
// to continue: nothing to continue, no such id, none to pick, none picked.
// They are the user's to fix (hew exits 2); reading the directory failing
// is not.
var ErrNoSession = errors.New("no session to continue")

// noSession is an error that is ErrNoSession, with its own text.
type noSession struct{ error }

func (noSession) Is(target error) bool { return target == ErrNoSession }

func noSessionf(format string, args ...any) error {
	return noSession{fmt.Errorf(format, args...)}
}

// Resume is how a run names the session it continues.
type Resume struct {
	Latest bool // -c/--continue: the newest session of the directory
	// ByID is --resume ID: the session ID of any directory.
	ByID bool
	ID   string
	Pick bool // a bare --resume: the only one, or a choice
}

// Path returns the file of the session r names among the sessions of root
// under home, "" for a new session. A bare --resume takes the only session
// of the directory; among several, choose picks one (false: none picked)
// and, with choose nil (nobody to ask), the error lists them.
func (r Resume) Path(home, root string, choose func([]Info) (string, bool)) (string, error) {
	dir := Dir(home, root)
	switch {
	case r.Latest:
		path, err := Latest(dir)
		if err == nil && path == "" {
			err = noSessionf("no session to continue in %s (sessions are kept per working directory)", root)
		}
		return path, err
	case r.ByID:
		path, err := Find(home, r.ID)
		if err != nil {
			return "", noSession{err}
		}
		return path, nil
	case !r.Pick:
		return "", nil
	}
	list, err := List(dir)
	switch {
	case err != nil:
		return "", err
	case len(list) == 0:
		return "", noSessionf("no sessions in %s", root)
	case len(list) == 1:
		return list[0].Path, nil
	case choose == nil:
		var b strings.Builder
		for _, s := range list {
			fmt.Fprintf(&b, "\n  %s  %s  %s", s.ID, s.Modified.Local().Format("2006-01-02 15:04"), s.Title)
		}
		return "", noSessionf("--resume needs a session id here; sessions of this directory:%s", b.String())
	}
	if path, ok := choose(list); ok {
		return path, nil
	}
	return "", noSessionf("no session picked")
}
