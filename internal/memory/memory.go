// Package memory keeps what is worth knowing across sessions of a project:
// one Markdown file per memory with frontmatter, sorted into user, feedback,
// project and reference, plus a MEMORY.md index of one line per memory.
// Every write holds a file lock and goes through temp file + rename, and the
// index is always derived from the files, so two hew processes writing at
// once lose nothing and a half-written file never corrupts the index.
// Recall (recall.go) picks the few index lines worth showing for a message.
package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/rogpeppe/go-internal/lockedfile"
	"go.yaml.in/yaml/v3"

	"github.com/hew-dev/hew/internal/fsutil"
)

// Types of memory, in the order the index lists them.
var Types = []string{"user", "feedback", "project", "reference"}

// Index limits: MEMORY.md stays under both; the lowest-value entries are
// left out first, and the index says how many were left out.
const (
	MaxIndexLines = 200
	MaxIndexBytes = 25 * 1024
)

// MaxBody bounds one memory's text: memories are notes, not documents.
const MaxBody = 16 * 1024

// Memory is one remembered item.
type Memory struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Type        string    `yaml:"type"`
	Created     time.Time `yaml:"created"`
	Updated     time.Time `yaml:"updated"`
	// Source says who wrote it and from what evidence ("user via /remember",
	// "model (memory_write)", "failure capture: run_shell …").
	Source string `yaml:"source,omitempty"`
	Body   string `yaml:"-"`
	// Path is the file, set when read or written.
	Path string `yaml:"-"`
}

// File is the memory's path relative to the memory directory (type/slug.md).
func (m Memory) File() string { return m.Type + "/" + Slug(m.Name) + ".md" }

// IndexLine is the memory's line in MEMORY.md.
func (m Memory) IndexLine() string {
	return fmt.Sprintf("- [%s](%s) — %s", oneLine(m.Name), m.File(), oneLine(m.Description))
}

// Store is the memory directory of one project.
type Store struct {
	Dir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IndexLines and IndexBytes override MaxIndexLines and MaxIndexBytes
	// when set (tests use small limits).
	IndexLines, IndexBytes int
}

// Open returns the store under a project's state directory.
func Open(projectDir string) *Store { return &Store{Dir: filepath.Join(projectDir, "memory")} }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Truncate(time.Second)
	}
	return time.Now().UTC().Truncate(time.Second)
}

// Slug makes a file-safe name from free text: letters and digits of any
// script (so Chinese names stay readable), lower-cased, dashes between.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	n := 0
	for _, r := range strings.ToLower(s) {
		if n >= 48 {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			n++
			continue
		}
		dash = true
	}
	return b.String()
}

// AddResult says what Add did.
type AddResult struct {
	Memory Memory
	// Replaced is true when a memory of the same type and name existed.
	Replaced bool
	// Pruned lists index lines left out of MEMORY.md to keep it within its
	// limits (the files stay; hew memory list shows them).
	Pruned []string
}

// Add stores a memory, replacing one of the same type and name (keeping
// its creation date). Text that looks like a secret is refused.
func (s *Store) Add(m Memory) (AddResult, error) {
	m.Body = strings.TrimSpace(m.Body)
	if m.Body == "" {
		return AddResult{}, errors.New("memory: nothing to remember (empty text)")
	}
	if len(m.Body) > MaxBody {
		return AddResult{}, fmt.Errorf("memory: text is %d bytes, more than the %d a memory may hold; keep the gist and point to the file it comes from", len(m.Body), MaxBody)
	}
	if why := SecretReason(m.Name + "\n" + m.Description + "\n" + m.Body); why != "" {
		return AddResult{}, fmt.Errorf("memory: refused: the text looks like it contains %s; secrets never go into memory", why)
	}
	if m.Type == "" {
		m.Type = "project"
	}
	if !validType(m.Type) {
		return AddResult{}, fmt.Errorf("memory: unknown type %q (want one of %s)", m.Type, strings.Join(Types, ", "))
	}
	if strings.TrimSpace(m.Name) == "" {
		m.Name = firstWords(m.Body, 8)
	}
	m.Name = oneLine(m.Name)
	if Slug(m.Name) == "" {
		m.Name = "memory " + s.now().Format("20060102-150405")
	}
	if strings.TrimSpace(m.Description) == "" {
		m.Description = firstWords(m.Body, 16)
	}
	m.Description = oneLine(m.Description)
	var res AddResult
	err := s.locked(func() error {
		m.Path = filepath.Join(s.Dir, filepath.FromSlash(m.File()))
		now := s.now()
		if old, err := read(m.Path); err == nil {
			res.Replaced = true
			if !old.Created.IsZero() {
				m.Created = old.Created
			}
		}
		if m.Created.IsZero() {
			m.Created = now
		}
		m.Updated = now
		front, err := yaml.Marshal(m)
		if err != nil {
			return fmt.Errorf("memory: encode: %w", err)
		}
		if err := writeAtomic(m.Path, []byte("---\n"+string(front)+"---\n"+m.Body+"\n")); err != nil {
			return err
		}
		res.Pruned, err = s.reindexLocked()
		return err
	})
	res.Memory = m
	return res, err
}

// List returns every memory, by type then file name.
func (s *Store) List() ([]Memory, error) {
	var out []Memory
	for _, typ := range Types {
		files, err := filepath.Glob(filepath.Join(s.Dir, typ, "*.md"))
		if err != nil {
			return nil, fmt.Errorf("memory: list: %w", err)
		}
		sort.Strings(files)
		for _, f := range files {
			m, err := read(f)
			if err != nil {
				continue
			}
			m.Type = typ
			out = append(out, m)
		}
	}
	return out, nil
}

// Get finds a memory by name, file slug or type/slug.
func (s *Store) Get(name string) (Memory, error) {
	list, err := s.List()
	if err != nil {
		return Memory{}, err
	}
	want := strings.TrimSuffix(name, ".md")
	for _, m := range list {
		slug := strings.TrimSuffix(filepath.Base(m.Path), ".md")
		if m.Name == name || slug == want || m.Type+"/"+slug == want || Slug(name) == slug {
			return m, nil
		}
	}
	return Memory{}, fmt.Errorf("no memory named %q (see hew memory list)", name)
}

// Remove deletes a memory by name.
func (s *Store) Remove(name string) error {
	return s.locked(func() error {
		m, err := s.Get(name)
		if err != nil {
			return err
		}
		if err := os.Remove(m.Path); err != nil {
			return fmt.Errorf("memory: remove %s: %w", name, err)
		}
		_, err = s.reindexLocked()
		return err
	})
}

// IndexPath is the MEMORY.md file.
func (s *Store) IndexPath() string { return filepath.Join(s.Dir, "MEMORY.md") }

// locked runs f holding the store's file lock, so concurrent writers in
// other processes wait instead of interleaving.
func (s *Store) locked(f func() error) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	unlock, err := lockedfile.MutexAt(filepath.Join(s.Dir, ".lock")).Lock()
	if err != nil {
		return fmt.Errorf("memory: lock: %w", err)
	}
	defer unlock()
	return f()
}

// Reindex rewrites MEMORY.md from the memory files (after they were
// edited by hand) and returns the entries left out of it.
func (s *Store) Reindex() ([]string, error) {
	var pruned []string
	err := s.locked(func() error {
		var err error
		pruned, err = s.reindexLocked()
		return err
	})
	return pruned, err
}

// reindexLocked rewrites MEMORY.md from the files. When the index would
// pass its limits, the lowest-value entries (by type weight and age) are
// left out and returned; the index's last line counts them.
func (s *Store) reindexLocked() ([]string, error) {
	list, err := s.List()
	if err != nil {
		return nil, err
	}
	const header = "# Memory index\n\nOne line per memory; the files beside this one hold the text. Written by hew: edit the memory files, not this index.\n"
	maxLines, maxBytes := MaxIndexLines, MaxIndexBytes
	if s.IndexLines > 0 {
		maxLines = s.IndexLines
	}
	if s.IndexBytes > 0 {
		maxBytes = s.IndexBytes
	}
	keep := make([]bool, len(list))
	order := byValue(list, s.now())
	// Fixed lines: the header (3), a blank and a heading per type, and the
	// blank line and note about left-out entries.
	lines := 3 + 2*len(Types) + 2
	size := len(header) + len("\n## reference\n")*len(Types) + 300
	var pruned []string
	for _, i := range order {
		l := list[i].IndexLine() + "\n"
		if lines+1 > maxLines || size+len(l) > maxBytes {
			pruned = append(pruned, list[i].IndexLine())
			continue
		}
		keep[i] = true
		lines++
		size += len(l)
	}
	var b strings.Builder
	b.WriteString(header)
	for _, typ := range Types {
		first := true
		for i, m := range list {
			if m.Type != typ || !keep[i] {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n## %s\n", typ)
				first = false
			}
			b.WriteString(m.IndexLine() + "\n")
		}
	}
	if len(pruned) > 0 {
		fmt.Fprintf(&b, "\n%d older, lower-value memories are not listed here (the index keeps under %d lines / %d KB); `hew memory list` shows every memory.\n", len(pruned), maxLines, maxBytes/1024)
	}
	return pruned, writeAtomic(s.IndexPath(), []byte(b.String()))
}

// Indexed returns the memories MEMORY.md lists (the recall candidates), in
// index order. A memory file the index does not list was pruned from it;
// without an index (files written by hand) every file is a candidate.
func (s *Store) Indexed() ([]Memory, error) {
	data, err := os.ReadFile(s.IndexPath())
	if errors.Is(err, os.ErrNotExist) {
		return s.List()
	}
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	var out []Memory
	for _, line := range strings.Split(string(data), "\n") {
		rel, ok := indexTarget(line)
		if !ok {
			continue
		}
		m, err := read(filepath.Join(s.Dir, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		m.Type = strings.SplitN(rel, "/", 2)[0]
		out = append(out, m)
	}
	return out, nil
}

// indexTarget extracts type/file.md from "- [Title](type/file.md) — hook".
func indexTarget(line string) (string, bool) {
	if !strings.HasPrefix(line, "- [") {
		return "", false
	}
	i := strings.Index(line, "](")
	if i < 0 {
		return "", false
	}
	rest := line[i+2:]
	j := strings.IndexByte(rest, ')')
	if j < 0 {
		return "", false
	}
	rel := rest[:j]
	typ, file, ok := strings.Cut(rel, "/")
	if !ok || !validType(typ) || strings.Contains(file, "/") || strings.Contains(file, "..") || !strings.HasSuffix(file, ".md") {
		return "", false
	}
	return rel, true
}

// byValue orders memories from most to least worth keeping in the index:
// type weight times recency, ties by file.
func byValue(list []Memory, now time.Time) []int {
	idx := make([]int, len(list))
	for i := range idx {
		idx[i] = i
	}
	val := func(m Memory) float64 { return TypeWeight[m.Type] * (1 + recency(m.stamp(), now)) }
	sort.SliceStable(idx, func(a, b int) bool {
		va, vb := val(list[idx[a]]), val(list[idx[b]])
		if va != vb {
			return va > vb
		}
		return list[idx[a]].File() < list[idx[b]].File()
	})
	return idx
}

// stamp is when the memory was last written.
func (m Memory) stamp() time.Time {
	if !m.Updated.IsZero() {
		return m.Updated
	}
	return m.Created
}

func read(path string) (Memory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Memory{}, err
	}
	m := Memory{Path: path}
	text := string(data)
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if front, body, ok := strings.Cut(rest, "\n---\n"); ok {
			_ = yaml.Unmarshal([]byte(front), &m) // a damaged header still leaves the body usable
			text = body
		}
	}
	m.Path = path
	m.Body = strings.TrimSpace(text)
	if m.Name == "" {
		m.Name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	if m.Description == "" {
		m.Description = firstWords(m.Body, 16)
	}
	if m.Created.IsZero() || m.Updated.IsZero() {
		if fi, err := os.Stat(path); err == nil {
			if m.Created.IsZero() {
				m.Created = fi.ModTime().UTC().Truncate(time.Second)
			}
			if m.Updated.IsZero() {
				m.Updated = m.Created
			}
		}
	}
	return m, nil
}

func validType(t string) bool {
	for _, x := range Types {
		if x == t {
			return true
		}
	}
	return false
}

func firstWords(s string, n int) string {
	w := strings.Fields(s)
	if len(w) > n {
		return strings.Join(w[:n], " ") + "…"
	}
	out := strings.Join(w, " ")
	if r := []rune(out); len(r) > 80 {
		out = string(r[:80]) + "…"
	}
	return out
}

// oneLine flattens text for a one-line field.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeAtomic writes through a temp file and rename, so readers never see a
// half-written file.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if err := fsutil.WriteFileAtomic(path, data, 0o600); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}
