package checkpoint

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Tracker follows one session's turns: the agent calls it at the start of a
// turn, around every call that may change files and at the end of the turn.
// It is lazy: a turn that only reads takes no snapshot at all.
type Tracker struct {
	s *Store

	mu      sync.Mutex
	idFn    func() string // the session id as it is now, if it can change
	session string
	prompt  string
	turn    *Turn  // the turn being recorded, nil before its first change
	last    string // the newest snapshot of the turn
	perPath map[string][]string
}

// Tracker returns a tracker recording into session.
func (s *Store) Tracker(session string) *Tracker {
	return &Tracker{s: s, session: session}
}

// TrackerFunc returns a tracker that asks id for the session id at the
// start of every turn, so /clear and /resume need not tell it.
func (s *Store) TrackerFunc(id func() string) *Tracker {
	return &Tracker{s: s, idFn: id, session: id()}
}

// Store is the store the tracker records into.
func (t *Tracker) Store() *Store { return t.s }

// SetSession switches to another session id (/clear, /resume); the turn in
// progress, if any, is ended first.
func (t *Tracker) SetSession(id string) {
	t.TurnEnd(context.Background())
	t.mu.Lock()
	t.session = id
	t.mu.Unlock()
}

// Session is the session the tracker records into.
func (t *Tracker) Session() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.session
}

// TurnStart begins a turn for the user's prompt.
func (t *Tracker) TurnStart(prompt string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.idFn != nil {
		t.session = t.idFn()
	}
	t.prompt, t.turn, t.last, t.perPath = prompt, nil, "", nil
}

// BeforeChange runs before a call that may change files. The first one of a
// turn records the tree as it was before the turn changed anything.
func (t *Tracker) BeforeChange(_ context.Context, callID, tool string, input json.RawMessage) error {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	paths := t.inputPaths(input)
	if t.turn == nil {
		snap, err := t.s.be.snapshot(t.session, paths)
		if err != nil {
			return err
		}
		t.turn = &Turn{Session: t.session, Seq: t.s.nextSeq(t.session), Prompt: t.prompt,
			Start: t.s.opts.Now().UTC(), Before: snap}
		t.last = snap
		t.perPath = map[string][]string{}
	} else {
		var err error
		if t.turn.Before, err = t.s.be.extend(t.turn.Before, paths); err != nil {
			return err
		}
		if t.last, err = t.s.be.extend(t.last, paths); err != nil {
			return err
		}
	}
	if t.s.be.kind() == "copy" && len(paths) == 0 && t.turn.Untracked == "" {
		t.turn.Untracked = "git is not installed, so changes made by " + tool + " and other non-file tools are not tracked"
	}
	return nil
}

// AfterChange runs after the call returned; it records what the call
// changed and returns the checkpoint it belongs to and the files.
func (t *Tracker) AfterChange(_ context.Context, callID, tool string, input json.RawMessage) (string, []string, error) {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.turn == nil {
		return "", nil, nil
	}
	snap, err := t.s.be.snapshot(t.session, t.inputPaths(input))
	if err != nil {
		return "", nil, err
	}
	changes, err := t.s.be.diff(t.last, snap)
	if err != nil {
		return "", nil, err
	}
	t.last = snap
	files := make([]string, 0, len(changes))
	for _, c := range changes {
		files = append(files, c.Path)
		t.perPath[c.Path] = append(t.perPath[c.Path], callID)
	}
	t.turn.Calls = append(t.turn.Calls, CallChange{ID: callID, Tool: tool, Files: files})
	return t.turn.ID(), files, nil
}

// TurnEnd records the turn if it changed anything.
func (t *Tracker) TurnEnd(context.Context) error {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	turn := t.turn
	t.turn = nil
	if turn == nil {
		return nil
	}
	changes, err := t.s.be.diff(turn.Before, t.last)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	for i := range changes {
		changes[i].Calls = t.perPath[changes[i].Path]
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	turn.After, turn.Changes, turn.End = t.last, changes, t.s.opts.Now().UTC()
	var kept []CallChange
	for _, c := range turn.Calls {
		if len(c.Files) > 0 {
			kept = append(kept, c)
		}
	}
	turn.Calls = kept
	if err := t.s.appendLog(turn.Session, logRecord{Type: "turn", Turn: turn}); err != nil {
		return err
	}
	t.s.maybePrune()
	return nil
}

// inputPaths are the project-relative paths a call names (file_path, path),
// which the copy store needs; git snapshots see everything anyway.
func (t *Tracker) inputPaths(input json.RawMessage) []string {
	if len(input) == 0 {
		return nil
	}
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"file_path", "path", "notebook_path"} {
		v, _ := in[k].(string)
		if v == "" {
			continue
		}
		p := v
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.s.opts.Root, p)
		}
		rel, err := filepath.Rel(t.s.opts.Root, filepath.Clean(p))
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}
