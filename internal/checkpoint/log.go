package checkpoint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The turns of each session are kept in sessions/ID.jsonl, append-only, one
// record a line and one write per record (O_APPEND): a kill leaves at most
// one torn last line, which loading skips.
type logRecord struct {
	Type string    `json:"type"` // "turn" | "undone"
	Turn *Turn     `json:"turn,omitempty"`
	Seq  int       `json:"seq,omitempty"`
	Time time.Time `json:"time"`
	// Refused lists the paths an undo left alone (changed since the turn).
	Refused []string `json:"refused,omitempty"`
}

func (s *Store) logPath(session string) string {
	return filepath.Join(s.dir, "sessions", safeName(session)+".jsonl")
}

func (s *Store) appendLog(session string, r logRecord) error {
	r.Time = s.opts.Now().UTC()
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	p := s.logPath(session)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("checkpoint: write %s: %w", p, err)
	}
	return f.Close()
}

// Turns returns the checkpointed turns of a session, oldest first, with
// Undone set on the ones taken back.
func (s *Store) Turns(session string) ([]*Turn, error) {
	data, err := os.ReadFile(s.logPath(session))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var turns []*Turn
	bySeq := map[int]*Turn{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	for sc.Scan() {
		var r logRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue // a torn last line
		}
		switch r.Type {
		case "turn":
			if r.Turn != nil {
				turns = append(turns, r.Turn)
				bySeq[r.Turn.Seq] = r.Turn
			}
		case "undone":
			if t := bySeq[r.Seq]; t != nil {
				t.Undone = true
			}
		}
	}
	return turns, nil
}

// SessionInfo is one session that has checkpoints.
type SessionInfo struct {
	ID       string    `json:"session"`
	Modified time.Time `json:"modified"`
}

// Sessions lists the sessions with checkpoints, newest first.
func (s *Store) Sessions() ([]SessionInfo, error) {
	entries, err := os.ReadDir(filepath.Join(s.dir, "sessions"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var out []SessionInfo
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, SessionInfo{ID: strings.TrimSuffix(name, ".jsonl"), Modified: fi.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out, nil
}

// nextSeq is one past the highest turn number of the session.
func (s *Store) nextSeq(session string) int {
	turns, _ := s.Turns(session)
	n := 0
	for _, t := range turns {
		if t.Seq > n {
			n = t.Seq
		}
	}
	return n + 1
}
