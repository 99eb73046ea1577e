package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/llm"
)

// InterruptedResult is the tool result given to calls that never got one
// because the process died or the turn was stopped.
const InterruptedResult = "interrupted: the session ended before this tool call finished; its effect is unknown — check before relying on it"

// Loaded is a session read back from disk.
type Loaded struct {
	Meta     Meta
	Path     string
	Messages []llm.Message
	// Skipped counts lines that could not be decoded (a torn last line).
	Skipped int
	// Repaired counts tool calls that were given an interrupted result.
	Repaired int
	// Changes maps a tool call id to the files it changed and the
	// checkpoint they belong to, from the call receipts (for /undo).
	Changes map[string]CallChanges
}

// CallChanges is what one tool call changed, as its receipt recorded it.
type CallChanges struct {
	Checkpoint string   `json:"checkpoint"`
	Files      []string `json:"changed"`
}

// Load reads a session file and returns a protocol-valid history.
func Load(path string) (*Loaded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	defer f.Close()
	out := &Loaded{Path: path}
	r := bufio.NewReaderSize(f, 64*1024)
	for {
		raw, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			var l line
			if jerr := json.Unmarshal(raw, &l); jerr != nil {
				out.Skipped++
			} else {
				out.apply(l)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("session: read %s: %w", path, err)
		}
	}
	if out.Meta.ID == "" {
		out.Meta.ID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	out.Messages, out.Repaired = Repair(out.Messages)
	return out, nil
}

func (s *Loaded) apply(l line) {
	switch l.Type {
	case KindMeta:
		if l.Meta != nil {
			s.Meta = *l.Meta
		}
	case KindMessage:
		if l.Message != nil {
			s.Messages = append(s.Messages, *l.Message)
		}
	case KindReset:
		s.Messages = append([]llm.Message(nil), l.Messages...)
	case "receipt":
		var r struct {
			ID string `json:"tool_use_id"`
			CallChanges
		}
		if json.Unmarshal(l.Data, &r) == nil && r.ID != "" && len(r.Files) > 0 {
			if s.Changes == nil {
				s.Changes = map[string]CallChanges{}
			}
			s.Changes[r.ID] = r.CallChanges
		}
	}
}

// uniqueIDs renames the tool calls of assistant message i whose ids were
// used before (or are empty), and the results answering them in the next
// message, keeping the provider's id as WireID: transcripts written before
// ids were made unique on append may repeat call_0.
func uniqueIDs(msgs []llm.Message, i int, seen map[string]bool) {
	n := 0
	for j, b := range msgs[i].Content {
		if b.Type != llm.BlockToolUse {
			continue
		}
		if b.ID != "" && !seen[b.ID] {
			seen[b.ID] = true
			continue
		}
		old := b.ID
		id := old
		for id == "" || seen[id] {
			n++
			id = fmt.Sprintf("%s_r%d", orCall(old), n)
		}
		seen[id] = true
		msgs[i].Content[j].ID = id
		if msgs[i].Content[j].WireID == "" {
			msgs[i].Content[j].WireID = old
		}
		if i+1 < len(msgs) && msgs[i+1].Role == llm.RoleUser {
			for k, r := range msgs[i+1].Content {
				if r.Type == llm.BlockToolResult && r.ID == old {
					msgs[i+1].Content[k].ID, msgs[i+1].Content[k].WireID = id, msgs[i].Content[j].WireID
					break
				}
			}
		}
	}
}

func orCall(id string) string {
	if id == "" {
		return "call"
	}
	return id
}

// Repair makes a history protocol-valid: repeated tool-call ids are made
// unique, consecutive messages of one role
// are merged, every tool_use is answered in the next user message (missing
// answers get an interrupted error result, in call order), results with no
// call are dropped, and a leading assistant message is removed. It returns
// the repaired history and how many results it had to invent.
func Repair(msgs []llm.Message) ([]llm.Message, int) {
	var merged []llm.Message
	for _, m := range msgs {
		if len(m.Content) == 0 {
			continue
		}
		if len(merged) == 0 && m.Role != llm.RoleUser {
			continue
		}
		if n := len(merged); n > 0 && merged[n-1].Role == m.Role {
			merged[n-1].Content = append(append([]llm.Block(nil), merged[n-1].Content...), m.Content...)
			continue
		}
		merged = append(merged, llm.Message{Role: m.Role, Content: append([]llm.Block(nil), m.Content...)})
	}
	invented := 0
	seen := map[string]bool{}
	for i := 0; i < len(merged); i++ {
		if merged[i].Role == llm.RoleAssistant {
			uniqueIDs(merged, i, seen)
		}
		m := merged[i]
		if m.Role == llm.RoleUser {
			// Drop results that answer no call of the previous message.
			var prev map[string]bool
			if i > 0 {
				prev = map[string]bool{}
				for _, b := range merged[i-1].ToolUses() {
					prev[b.ID] = true
				}
			}
			kept := m.Content[:0:0]
			for _, b := range m.Content {
				if b.Type == llm.BlockToolResult && !prev[b.ID] {
					continue
				}
				kept = append(kept, b)
			}
			merged[i].Content = kept
			continue
		}
		calls := m.ToolUses()
		if len(calls) == 0 {
			continue
		}
		var next []llm.Block
		if i+1 < len(merged) {
			next = merged[i+1].Content
		}
		have := map[string]llm.Block{}
		var rest []llm.Block
		for _, b := range next {
			if b.Type == llm.BlockToolResult {
				have[b.ID] = b
			} else {
				rest = append(rest, b)
			}
		}
		// Results first, in call order, then whatever text followed.
		results := make([]llm.Block, 0, len(calls)+len(rest))
		for _, c := range calls {
			if r, ok := have[c.ID]; ok {
				results = append(results, r)
				continue
			}
			invented++
			results = append(results, llm.Block{Type: llm.BlockToolResult, ID: c.ID, WireID: c.WireID, Content: InterruptedResult, IsError: true})
		}
		results = append(results, rest...)
		if i+1 < len(merged) {
			merged[i+1].Content = results
		} else {
			merged = append(merged, llm.Message{Role: llm.RoleUser, Content: results})
		}
	}
	// Drop user messages emptied by the filtering above.
	out := merged[:0]
	for _, m := range merged {
		if len(m.Content) > 0 {
			out = append(out, m)
		}
	}
	return out, invented
}

// Info summarises a session for listings.
type Info struct {
	ID       string
	Path     string
	Cwd      string
	Model    string
	Created  time.Time
	Modified time.Time
	Messages int
	// Title is the start of the first user prompt.
	Title string
}

// List returns the sessions in dir, newest first.
func List(dir string) ([]Info, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: list %s: %w", dir, err)
	}
	var out []Info
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		s, err := Load(path)
		if err != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, Info{
			ID: s.Meta.ID, Path: path, Cwd: s.Meta.Cwd, Model: s.Meta.Model,
			Created: s.Meta.Created, Modified: fi.ModTime(), Messages: len(s.Messages), Title: title(s.Messages),
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Modified.Equal(out[j].Modified) {
			return out[i].Modified.After(out[j].Modified)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// Latest returns the newest session in dir, or "" when there is none.
func Latest(dir string) (string, error) {
	list, err := List(dir)
	if err != nil || len(list) == 0 {
		return "", err
	}
	return list[0].Path, nil
}

// Find locates session id in any project under home.
func Find(home, id string) (string, error) {
	if err := checkID(id); err != nil {
		return "", err
	}
	matches, err := filepath.Glob(filepath.Join(home, "projects", "*", "sessions", id+".jsonl"))
	if err != nil {
		return "", fmt.Errorf("session: find %s: %w", id, err)
	}
	if len(matches) == 0 {
		if p, err := findSidechain(home, id); p != "" || err != nil {
			return p, err
		}
		return "", fmt.Errorf("no session %q under %s", id, filepath.Join(home, "projects"))
	}
	return matches[0], nil
}

// Remove deletes session id from dir.
func Remove(dir, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.Remove(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no session %q in this directory", id)
		}
		return fmt.Errorf("session: remove %s: %w", id, err)
	}
	return removeSidechains(dir, id)
}

func checkID(id string) error {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.Contains(id, "..") {
		return fmt.Errorf("invalid session id %q", id)
	}
	return nil
}

func title(msgs []llm.Message) string {
	for _, m := range msgs {
		if m.Role != llm.RoleUser {
			continue
		}
		for _, b := range m.Content {
			if b.Type != llm.BlockText {
				continue
			}
			t := StripReminder(b.Text)
			t = strings.Join(strings.Fields(t), " ")
			if t == "" {
				continue
			}
			if r := []rune(t); len(r) > 60 {
				t = string(r[:59]) + "…"
			}
			return t
		}
	}
	return ""
}

// StripReminder drops <system-reminder> sections, which are not the user's words.
func StripReminder(s string) string {
	for {
		i := strings.Index(s, "<system-reminder>")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "</system-reminder>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</system-reminder>"):]
	}
}
