package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Action is one file an undo puts back.
type Action struct {
	Path string `json:"path"`
	// Do is "restore" (content from before), "delete" (the turn created
	// it) or "recreate" (the turn deleted it).
	Do   string  `json:"action"`
	Seq  int     `json:"turn"`
	To   Version `json:"-"`
	from Version
	// Added and Removed count the lines the file gains and loses (a diff
	// summary); Binary is set instead for binary content.
	Added   int  `json:"added"`
	Removed int  `json:"removed"`
	Binary  bool `json:"binary,omitempty"`
}

// Refusal is a file an undo leaves alone because it changed after the turn.
type Refusal struct {
	Path   string `json:"path"`
	Seq    int    `json:"turn"`
	Reason string `json:"reason"`
	// Diff shows the turn's result against what is there now.
	Diff string `json:"diff,omitempty"`
}

// Plan is what an undo would do; nothing is written until Apply.
type Plan struct {
	Session string    `json:"session"`
	Turns   []*Turn   `json:"-"`
	Seqs    []int     `json:"turns"`
	Actions []Action  `json:"actions"`
	Refused []Refusal `json:"refused"`
	Kind    string    `json:"store"`
	Notes   []string  `json:"notes,omitempty"`
	store   *Store
	turnsBy map[int]*Turn
}

// Empty reports whether the plan would change nothing.
func (p *Plan) Empty() bool { return len(p.Actions) == 0 }

// EmptyPlan is a plan that changes nothing (no turn to take back).
func (s *Store) EmptyPlan(session string) *Plan {
	return &Plan{Session: session, Kind: s.Kind(), store: s, turnsBy: map[int]*Turn{}}
}

// PlanUndo works out how to take back the last n turns of session that are
// not undone yet, newest first. A file that differs from what the turn left
// is refused (force takes it back anyway) and the rest still goes ahead.
func (s *Store) PlanUndo(session string, n int, force bool) (*Plan, error) {
	if n <= 0 {
		return nil, fmt.Errorf("checkpoint: the number of turns must be at least 1, not %d", n)
	}
	turns, err := s.Turns(session)
	if err != nil {
		return nil, err
	}
	p := s.EmptyPlan(session)
	for i := len(turns) - 1; i >= 0 && len(p.Turns) < n; i-- {
		if !turns[i].Undone {
			p.Turns = append(p.Turns, turns[i])
		}
	}
	// state is what each path holds as the undo proceeds, newest turn first.
	state := map[string]Version{}
	final := map[string]*Action{}
	for _, t := range p.Turns {
		p.Seqs = append(p.Seqs, t.Seq)
		p.turnsBy[t.Seq] = t
		if t.Untracked != "" {
			p.Notes = append(p.Notes, fmt.Sprintf("turn %d: %s", t.Seq, t.Untracked))
		}
		for _, c := range t.Changes {
			cur, ok := state[c.Path]
			if !ok {
				if cur, err = s.be.current(c.Path); err != nil {
					p.Refused = append(p.Refused, Refusal{Path: c.Path, Seq: t.Seq, Reason: err.Error()})
					continue
				}
			}
			if !cur.same(c.After) && !force {
				p.Refused = append(p.Refused, Refusal{Path: c.Path, Seq: t.Seq,
					Reason: "changed after turn " + fmt.Sprint(t.Seq) + " (by you or another program); use --force to take it back anyway",
					Diff:   s.conflictDiff(c.Path, c.After, cur)})
				// Later (older) turns build on this state: leave it as is.
				state[c.Path] = Version{Exists: true, Hash: "refused"}
				continue
			}
			state[c.Path] = c.Before
			a := final[c.Path]
			if a == nil {
				a = &Action{Path: c.Path, from: cur}
				final[c.Path] = a
			}
			a.To, a.Seq = c.Before, t.Seq
		}
	}
	for _, a := range final {
		switch {
		case a.from.same(a.To):
			continue // back where it started: nothing to write
		case !a.To.Exists:
			a.Do = "delete"
		case !a.from.Exists:
			a.Do = "recreate"
		default:
			a.Do = "restore"
		}
		s.countLines(a)
		p.Actions = append(p.Actions, *a)
	}
	sort.Slice(p.Actions, func(i, j int) bool { return p.Actions[i].Path < p.Actions[j].Path })
	return p, nil
}

// countLines fills in the diff summary of an action: lines gained and lost
// going from what is on disk now to what the undo writes.
func (s *Store) countLines(a *Action) {
	var now, to []byte
	if a.from.Exists && a.from.Hash != "dir" {
		if p, err := s.abs(a.Path); err == nil {
			now, _ = os.ReadFile(p)
		}
	}
	if a.To.Exists {
		to, _ = s.be.blob(a.To)
	}
	if isBinary(now) || isBinary(to) {
		a.Binary = true
		return
	}
	for _, l := range strings.Split(udiff.Unified("a", "b", string(now), string(to)), "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			a.Added++
		case strings.HasPrefix(l, "-"):
			a.Removed++
		}
	}
}

// conflictDiff shows, for a refused file, the turn's result against now.
func (s *Store) conflictDiff(rel string, after, now Version) string {
	var a, b []byte
	if after.Exists {
		a, _ = s.be.blob(after)
	}
	if now.Exists && now.Hash != "dir" {
		p, err := s.abs(rel)
		if err == nil {
			b, _ = os.ReadFile(p)
		}
	}
	if isBinary(a) || isBinary(b) {
		return fmt.Sprintf("Binary file %s differs (%d bytes after the turn, %d now)\n", rel, len(a), len(b))
	}
	d := udiff.Unified("after turn/"+rel, "now/"+rel, string(a), string(b))
	const limit = 4000
	if len(d) > limit {
		d = d[:limit] + "\n… (diff cut)\n"
	}
	return d
}

func isBinary(b []byte) bool {
	n := len(b)
	if n > 8000 {
		n = 8000
	}
	for _, c := range b[:n] {
		if c == 0 {
			return true
		}
	}
	return false
}

// Summary is the plan as lines for the user: what each file will become.
func (p *Plan) Summary() string {
	var b strings.Builder
	if len(p.Turns) == 0 {
		return "Nothing to undo: no turn of this session changed files (or all were undone).\n"
	}
	seqs := make([]string, len(p.Seqs))
	for i, s := range p.Seqs {
		seqs[i] = fmt.Sprint(s)
	}
	fmt.Fprintf(&b, "Undo of turn %s:\n", strings.Join(seqs, ", "))
	for _, t := range p.Turns {
		fmt.Fprintf(&b, "  turn %d: %s\n", t.Seq, t.Title(70))
	}
	for _, a := range p.Actions {
		stat := fmt.Sprintf("(+%d -%d)", a.Added, a.Removed)
		if a.Binary {
			stat = "(binary)"
		}
		fmt.Fprintf(&b, "  %-8s %s %s\n", a.Do, a.Path, stat)
	}
	for _, r := range p.Refused {
		fmt.Fprintf(&b, "  refused  %s: %s\n", r.Path, r.Reason)
		for _, l := range strings.Split(strings.TrimRight(r.Diff, "\n"), "\n") {
			if l != "" {
				fmt.Fprintf(&b, "           %s\n", l)
			}
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	if len(p.Actions) == 0 && len(p.Refused) == 0 {
		b.WriteString("  (the files are already as they were before)\n")
	}
	return b.String()
}

// Title is the turn's prompt on one line, at most n characters, without
// the <system-reminder> blocks hew adds to a user message.
func (t *Turn) Title(n int) string {
	s := StripReminders(t.Prompt)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Apply carries the plan out and marks its turns undone. Files are written
// atomically; the first failure stops and is returned with what was done.
func (p *Plan) Apply() (done []Action, err error) {
	s := p.store
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range p.Actions {
		if err := s.put(a); err != nil {
			return done, err
		}
		done = append(done, a)
	}
	refused := map[int][]string{}
	for _, r := range p.Refused {
		refused[r.Seq] = append(refused[r.Seq], r.Path)
	}
	for _, seq := range p.Seqs {
		if err := s.appendLog(p.Session, logRecord{Type: "undone", Seq: seq, Refused: refused[seq]}); err != nil {
			return done, err
		}
	}
	return done, nil
}

// put makes one path hold version v.
func (s *Store) put(a Action) error {
	p, err := s.abs(a.Path)
	if err != nil {
		return err
	}
	if !a.To.Exists {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("checkpoint: delete %s: %w", a.Path, err)
		}
		s.removeEmptyDirs(filepath.Dir(p))
		return nil
	}
	data, err := s.be.blob(a.To)
	if err != nil {
		return fmt.Errorf("checkpoint: %s: %w", a.Path, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if fi, err := os.Lstat(p); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if a.To.Mode == 0o120000 {
		os.Remove(p)
		if err := os.Symlink(filepath.FromSlash(string(data)), p); err != nil {
			return fmt.Errorf("checkpoint: restore link %s: %w", a.Path, err)
		}
		return nil
	}
	perm := fs.FileMode(0o644)
	if a.To.Mode == 0o100755 {
		perm = 0o755
	}
	if err := writeAtomic(p, data); err != nil {
		return err
	}
	return os.Chmod(p, perm)
}

// removeEmptyDirs removes directories a deleted file leaves empty, up to
// (not including) the root.
func (s *Store) removeEmptyDirs(dir string) {
	root := filepath.Clean(s.opts.Root)
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// StripReminders removes <system-reminder>…</system-reminder> blocks: what
// is left is what the user typed.
func StripReminders(s string) string {
	for {
		i := strings.Index(s, "<system-reminder>")
		if i < 0 {
			return strings.TrimSpace(s)
		}
		j := strings.Index(s[i:], "</system-reminder>")
		if j < 0 {
			return strings.TrimSpace(s[:i])
		}
		s = s[:i] + s[i+j+len("</system-reminder>"):]
	}
}
